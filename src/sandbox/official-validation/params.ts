/** The checks every part of a native send body is made of, each failing with the provider's code (100, 131008, 131009). */
import { official, type OfficialError } from '../errors.ts';

export type Json = Record<string, unknown>;

export const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);
/** What a media message's object has besides its link or id. */
export const MEDIA_EXTRAS: Record<string, readonly string[]> = {
  image: ['caption'],
  video: ['caption'],
  document: ['caption', 'filename'],
};
export class Refusal extends Error {
  readonly error: OfficialError;
  constructor(error: OfficialError) {
    super(error.message);
    this.error = error;
  }
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function asNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** Code 100: a value of the wrong kind (not an object, not a string, …). */
export function need(condition: unknown, details: string): asserts condition {
  if (!condition) throw new Refusal(official.invalidParameter(details));
}

/** Code 131008: a required parameter is absent. */
export function present(value: unknown, at: string): void {
  if (value === undefined || value === null) throw new Refusal(official.missingParameter(`The parameter ${at} is required.`));
}

/** Code 131009: the parameter is there but its value is not one the provider accepts. */
export function valid(condition: unknown, details: string): asserts condition {
  if (!condition) throw new Refusal(official.invalidValue(details));
}

/** Code 100: fields the provider does not know are refused, not ignored. */
export function known(object: Json, allowed: readonly string[], at: string): void {
  const unknown = Object.keys(object).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new Refusal(official.invalidParameter(`Unexpected key "${unknown}" on param "${at}".`));
}

/** An object parameter: present (131008), an object (100), with only the given keys (100). */
export function object(value: unknown, at: string, allowed: readonly string[]): Json {
  present(value, at);
  need(isObject(value), `Param ${at} must be an object.`);
  known(value, allowed, at);
  return value;
}

/** A string parameter: present (131008), a string (100), non-empty and at most `max` long (131009). */
export function string(value: unknown, at: string, max: number): string {
  present(value, at);
  need(typeof value === 'string', `Param ${at} must be a string.`);
  valid(value.trim().length > 0 && value.length <= max, `Param ${at} must be a non-empty string of at most ${max} characters.`);
  return value;
}

/** An array parameter: present (131008), an array (100), `min` to `max` elements (131009). */
export function array(value: unknown, at: string, min: number, max: number): unknown[] {
  present(value, at);
  need(Array.isArray(value), `Param ${at} must be an array.`);
  valid(value.length >= min && value.length <= max, `Param ${at} must have ${min === max ? min : `${min} to ${max}`} elements.`);
  return value;
}

/** A media object: a link or an id, and the fields its kind has (`extra`: a message's caption and file name by default). */
export function checkMedia(type: string, payload: unknown, at: string = type, extra: readonly string[] = MEDIA_EXTRAS[type] ?? []) {
  const media = object(payload, at, ['id', 'link', ...extra]);
  const hasLink = media.link !== undefined;
  const hasId = media.id !== undefined;
  if (!hasLink && !hasId) present(undefined, `${at}['link'] or ${at}['id']`);
  valid(!(hasLink && hasId), `Param ${at} must have a link or an id, not both.`);
  if (hasLink) valid(isHttpUrl(media.link), `Param ${at}['link'] must be an http(s) URL.`);
  if (hasId) string(media.id, `${at}['id']`, 256);
  if (media.caption !== undefined) {
    need(typeof media.caption === 'string', `Param ${at}['caption'] must be a string.`);
    valid(media.caption.length <= 1024, `Param ${at}['caption'] must be at most 1024 characters.`);
  }
  if (media.filename !== undefined) string(media.filename, `${at}['filename']`, 240);
}
