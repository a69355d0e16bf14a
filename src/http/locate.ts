import { DomainError, type FieldError } from '../domain/errors.ts';

/**
 * Domain functions point their field errors into their input (`/to`); the route knows where that
 * input came from (body, query, params) and adds it to the errors that do not say.
 */
export async function locate<T>(location: NonNullable<FieldError['location']>, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (!(err instanceof DomainError) || !err.fieldErrors?.some((f) => f.location === undefined)) throw err;
    throw new DomainError(err.code, err.message, {
      fieldErrors: err.fieldErrors.map((f) => ({ ...f, location: f.location ?? location })),
      extra: err.extra,
    });
  }
}
