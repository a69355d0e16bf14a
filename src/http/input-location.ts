/**
 * Where a bad input was in the request. The domain names a bad field by its pointer in the input it
 * was given; only the route knows whether that input came from the path, the query or the body, so
 * the route adds the location to the refusal's field errors.
 */
import { DomainError, type FieldError } from '../domain/errors.ts';

export type InputLocation = NonNullable<FieldError['location']>;

/** The error with its field errors placed in the request (a location already set stays). */
export function locateFieldErrors(error: unknown, location: InputLocation): unknown {
  if (!(error instanceof DomainError) || !error.fieldErrors) return error;
  return new DomainError(error.code, error.message, { fieldErrors: located(error.fieldErrors, location), extra: error.extra });
}

/** Field errors with their location, for a refusal the route writes itself. */
export function located(fieldErrors: FieldError[], location: InputLocation): FieldError[] {
  return fieldErrors.map((f) => ({ pointer: f.pointer, location: f.location ?? location, message: f.message }));
}

/** Awaits a domain call whose input came from one place in the request. */
export async function inputFrom<T>(location: InputLocation, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw locateFieldErrors(err, location);
  }
}
