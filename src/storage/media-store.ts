/**
 * Where downloaded media lives: a key-value store of byte streams. Two implementations, picked by
 * the config in container.ts: the filesystem under MEDIA_DIR (fs-store.ts) and an S3-compatible
 * bucket (s3-store.ts). Keys are the domain's (`{organization}/{message}`); an object is either
 * whole under its key or absent, never half written.
 */

/** An inclusive byte range of an object (`end` < size). */
export type ByteRange = { start: number; end: number };

export type StoredObject = {
  /** The bytes (the range's only, when one was asked). */
  body: AsyncIterable<Uint8Array>;
  /** The whole object's size in bytes. */
  size: number;
};

export interface MediaStore {
  /** Where it keeps objects, for the logs (never a credential). */
  readonly describe: string;
  /**
   * Streams `body` into the object `key`, replacing one already there only once the new one is
   * complete. If the body throws (an abort: a size limit passed, the download failed), nothing is
   * left under the key's new version and the error is thrown again.
   */
  put(key: string, body: AsyncIterable<Uint8Array>, options: { contentType: string }): Promise<void>;
  /** The object (or the given range of it), or undefined when there is none. */
  get(key: string, range?: ByteRange): Promise<StoredObject | undefined>;
  /** Removes the object; removing one that is not there is no error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}

/** Keys are made of path-safe segments: letters, digits, `-`, `_`, `.` (not only dots), joined by `/`. */
const KEY = /^(?!.*(^|\/)\.{1,2}(\/|$))[A-Za-z0-9._-]{1,128}(\/[A-Za-z0-9._-]{1,128}){0,7}$/;

export function assertKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`media store key ${JSON.stringify(key)} is not a path-safe key`);
}
