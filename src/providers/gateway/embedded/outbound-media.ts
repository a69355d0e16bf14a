/**
 * Media a send carries, by URL: fetched here under the target policy, within the type's size limit,
 * and handed to the library as bytes (it never fetches a URL itself: it would not check where it
 * points); a link preview's thumbnail likewise.
 */
import type { AnyMessageContent, WAUrlInfo } from 'baileys';
import { isAnimatedWebp, MEDIA_RULES, STATIC_STICKER_MAX } from '../../../domain/messages/media.ts';
import { safeFetch, UnsafeTargetError, type TargetPolicy } from '../../../lib/safe-fetch.ts';
import type { ProviderError, Result } from '../../provider.ts';
import { audioOf, type VoiceConverter } from './voice.ts';

type Json = Record<string, unknown>;
const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
const fail = (error: ProviderError): { ok: false; error: ProviderError } => ({ ok: false, error });

const MEDIA_FETCH_TIMEOUT_MS = 30_000;
/** A link preview's thumbnail is decoration: a larger one is left out rather than failing the message. */
const THUMBNAIL_MAX_BYTES = 300 * 1024;

export type Fetched = { bytes: Buffer; mimeType?: string };

/** The library's content of a media message: the bytes, caption, file name (documents), MIME type. */
export function mediaContent(type: string, media: Fetched, c: Json): AnyMessageContent {
  const caption = typeof c.caption === 'string' && c.caption !== '' ? c.caption : undefined;
  const mimetype = media.mimeType ?? (typeof c.media_type === 'string' && c.media_type.includes('/') ? c.media_type : undefined);
  switch (type) {
    case 'image':
      return { image: media.bytes, caption, ...(mimetype ? { mimetype } : {}) };
    case 'video':
      return { video: media.bytes, caption, ...(mimetype ? { mimetype } : {}) };
    case 'audio':
      // Voice notes are audioContent's (voice.ts): this is an audio file.
      return { audio: media.bytes, ptt: false, ...(mimetype ? { mimetype } : {}) };
    case 'sticker':
      return { sticker: media.bytes, isAnimated: isAnimatedWebp(media.bytes.subarray(0, 64)), mimetype: 'image/webp' };
    default:
      return {
        document: media.bytes,
        mimetype: mimetype ?? 'application/octet-stream',
        ...(typeof c.file_name === 'string' && c.file_name !== '' ? { fileName: c.file_name } : {}),
        caption,
      };
  }
}

/** Audio: OGG is a voice note (Opus mono, converted when needed and possible: voice.ts), anything else an audio file. */
export async function audioContent(media: Fetched, c: Json, convert: VoiceConverter): Promise<AnyMessageContent> {
  const declared = typeof c.media_type === 'string' && c.media_type.includes('/') ? c.media_type.toLowerCase() : undefined;
  const audio = await audioOf(media.bytes, media.mimeType ?? declared, convert);
  return { audio: audio.bytes, ptt: audio.ptt, ...(audio.mimetype ? { mimetype: audio.mimetype } : {}) };
}

/** The preview a link message shows, from the content's own title, description and thumbnail (nothing is fetched but the thumbnail). */
export async function linkPreviewOf(url: string, c: Json, targets: TargetPolicy): Promise<WAUrlInfo | null> {
  if (typeof c.title !== 'string' || c.title === '') return null;
  const preview: WAUrlInfo = {
    'canonical-url': url,
    'matched-text': url,
    title: c.title,
    ...(typeof c.description === 'string' ? { description: c.description } : {}),
  };
  if (typeof c.thumbnail_url === 'string') {
    const thumb = await fetchBytes(c.thumbnail_url, THUMBNAIL_MAX_BYTES, targets).catch(() => undefined);
    if (thumb?.ok && (thumb.value.mimeType === 'image/jpeg' || thumb.value.mimeType === 'image/png'))
      preview.jpegThumbnail = thumb.value.bytes;
  }
  return preview;
}

// ---------------------------------------------------------------------------------------------------
// Media by URL, fetched under the target policy, within the type's size limit.

export async function fetchMedia(url: string, type: string, targets: TargetPolicy): Promise<Result<Fetched>> {
  const max = MEDIA_RULES[type]?.maxBytes ?? MEDIA_RULES.document!.maxBytes;
  let fetched: Result<Fetched>;
  try {
    fetched = await fetchBytes(url, max, targets);
  } catch (err) {
    if (err instanceof UnsafeTargetError)
      return fail({ code: 'media_url_refused', title: `media URL refused: ${err.message}`, retryable: false });
    return fail({ code: 'media_unreachable', title: `media URL could not be fetched: ${(err as Error).message}`, retryable: true });
  }
  if (!fetched.ok) return fetched;
  if (type === 'sticker' && !isAnimatedWebp(fetched.value.bytes.subarray(0, 64)) && fetched.value.bytes.length > STATIC_STICKER_MAX) {
    return fail(tooLarge('static sticker', fetched.value.bytes.length, STATIC_STICKER_MAX));
  }
  return fetched;
}

const tooLarge = (what: string, size: number, max: number): ProviderError => ({
  code: 'media_too_large',
  title: `${what} media is ${size} bytes${size > max ? '' : ' or more'}; the limit is ${max} bytes`,
  retryable: false,
});

/** GET a URL's bytes, refusing more than `max` (by the declared length, and while reading). */
async function fetchBytes(url: string, max: number, targets: TargetPolicy): Promise<Result<Fetched>> {
  const response = await safeFetch(url, { method: 'GET', signal: AbortSignal.timeout(MEDIA_FETCH_TIMEOUT_MS) }, targets);
  try {
    if (response.status >= 300) {
      return fail({
        code: 'media_unreachable',
        title: `media URL answered HTTP ${response.status}`,
        retryable: response.status >= 500 || response.status === 429,
      });
    }
    const mimeType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() || undefined;
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > max) return fail(tooLarge('the', declared, max));
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > max) return fail(tooLarge('the', size, max));
      chunks.push(Buffer.from(chunk));
    }
    return ok({ bytes: Buffer.concat(chunks), mimeType });
  } finally {
    await response.body?.cancel().catch(() => undefined);
  }
}
