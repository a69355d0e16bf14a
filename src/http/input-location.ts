/**
 * Where a bad input was in the request. The domain names a bad field by its pointer in the input it
 * was given; only the route knows whether that input came from the path, the query or the body, so
 * the route adds the location to the refusal's field errors.
 */
import { DomainError, type FieldError } from '../domain/errors.ts';

export type InputLocation = NonNullable<FieldError['location']>;

/**
 * How a field error is written: `{pointer, location, message}` on every route but the API key routes,
 * which have always written the location last.
 */
export type FieldErrorOrder = 'location-second' | 'location-last';

/** Field errors with their location, for a refusal the route writes itself (a location already set stays). */
export function located(fieldErrors: FieldError[], location: InputLocation, order: FieldErrorOrder = 'location-second'): FieldError[] {
  return fieldErrors.map((f) =>
    order === 'location-last'
      ? { pointer: f.pointer, message: f.message, location: f.location ?? location }
      : { pointer: f.pointer, location: f.location ?? location, message: f.message },
  );
}

/** The error with its field errors placed in the request. */
export function locateFieldErrors(error: unknown, location: InputLocation, order?: FieldErrorOrder): unknown {
  if (!(error instanceof DomainError) || !error.fieldErrors) return error;
  return new DomainError(error.code, error.message, { fieldErrors: located(error.fieldErrors, location, order), extra: error.extra });
}

/** Awaits a domain call whose input came from one place in the request. */
export async function inputFrom<T>(location: InputLocation, work: Promise<T>, order?: FieldErrorOrder): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw locateFieldErrors(err, location, order);
  }
}
