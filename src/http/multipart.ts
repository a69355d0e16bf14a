/**
 * multipart/form-data bodies (file uploads), read with the runtime's own form parser (the fetch API's
 * FormData: no dependency) from a route's unread request stream. The stream is counted as it arrives
 * and refused past the limit, so a body is never held bigger than `limitBytes`; the parsed form holds
 * the files in memory (an upload route's limit bounds them).
 */

/** Why a body is not a form: another media type, too big, or not well-formed multipart. */
export type MultipartRefusal = 'not_multipart' | 'too_large' | 'malformed';

export class MultipartError extends Error {
  readonly reason: MultipartRefusal;
  constructor(reason: MultipartRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The media type of a Content-Type header, lower-case. */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Reads a multipart/form-data body; throws MultipartError when it is none, too big, or malformed. */
export async function readMultipart(
  body: unknown,
  headers: { 'content-type'?: string; 'content-length'?: string },
  limitBytes: number,
): Promise<FormData> {
  const contentType = headers['content-type'];
  if (mediaTypeOf(contentType) !== 'multipart/form-data' || !/;\s*boundary=/i.test(contentType ?? ''))
    throw new MultipartError('not_multipart', 'send multipart/form-data (with its boundary)');
  if (Number(headers['content-length'] ?? 0) > limitBytes) throw new MultipartError('too_large', `the body is over ${limitBytes} bytes`);
  if (typeof (body as AsyncIterable<Uint8Array> | undefined)?.[Symbol.asyncIterator] !== 'function')
    throw new MultipartError('malformed', 'the body is empty');
  let read = 0;
  let over = false;
  async function* counted() {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      read += chunk.length;
      if (read > limitBytes) {
        over = true;
        throw new MultipartError('too_large', `the body is over ${limitBytes} bytes`);
      }
      yield chunk;
    }
  }
  try {
    return await new Response(counted() as unknown as BodyInit, { headers: { 'content-type': contentType! } }).formData();
  } catch (err) {
    if (over) throw new MultipartError('too_large', `the body is over ${limitBytes} bytes`);
    if (err instanceof MultipartError) throw err;
    throw new MultipartError('malformed', 'the body is not well-formed multipart/form-data');
  }
}
