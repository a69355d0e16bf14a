/**
 * Downloading an inbound message's media for the embedded engine: the encrypted bytes are fetched
 * here (never by the library, whose fetch checks nothing) from the service's media hosts only, and
 * decrypted with the message's media key as the library does (its key derivation, AES-256-CBC), the
 * MAC and the plaintext's SHA-256 checked at the end. `source` is what inbound.ts put in the event.
 */
import { createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { MediaType } from 'baileys';
import { MEDIA_RULES } from '../../../domain/messages/media.ts';
import { safeFetch, UnsafeTargetError, type TargetPolicy } from '../../../lib/safe-fetch.ts';
import { library, loadLibrary } from './library.ts';
import type { MediaDownload, ProviderError, Result } from '../../provider.ts';

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);
const MAC_LENGTH = 10;
const FETCH_TIMEOUT_MS = 60_000;

const fail = (error: ProviderError): { ok: false; error: ProviderError } => ({ ok: false, error });

/** The service's media hosts (`mmg.whatsapp.net` and its siblings). */
const isMediaHost = (url: URL) => url.protocol === 'https:' && (url.hostname === 'whatsapp.net' || url.hostname.endsWith('.whatsapp.net'));

/**
 * Where a source's encrypted bytes are: its URL, else its direct path on the default media host. Only
 * https URLs on the service's media hosts, unless the target policy allows private addresses (tests).
 */
export function mediaUrlOf(source: Record<string, unknown>, targets: TargetPolicy): Result<URL> {
  const raw =
    typeof source.url === 'string' && source.url !== ''
      ? source.url
      : typeof source.directPath === 'string' && source.directPath.startsWith('/')
        ? library().getUrlFromDirectPath(source.directPath)
        : undefined;
  if (!raw) return fail({ code: 'media_unavailable', title: 'the message names no media location (url or directPath)', retryable: false });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail({ code: 'media_url_refused', title: 'the media location is not a URL', retryable: false });
  }
  if (!isMediaHost(url) && !targets.allowPrivate) {
    return fail({
      code: 'media_url_refused',
      title: `media is fetched only from the service's media hosts (https, *.whatsapp.net), not ${url.host}`,
      retryable: false,
    });
  }
  return { ok: true, value: url };
}

/** Downloads and decrypts the media of an inbound message (InboundMedia.source), streamed; a bad MAC or hash fails the stream at its end. */
export async function downloadEmbeddedMedia(source: Record<string, unknown>, targets: TargetPolicy): Promise<Result<MediaDownload>> {
  const type = String(source.mediaType ?? '');
  if (!MEDIA_TYPES.has(type))
    return fail({ code: 'media_unavailable', title: `not a media type the engine downloads: ${type || 'none'}`, retryable: false });
  if (typeof source.mediaKey !== 'string' || source.mediaKey === '')
    return fail({ code: 'media_unavailable', title: 'the message carries no media key', retryable: false });
  const max = MEDIA_RULES[type]!.maxBytes;
  const declared = typeof source.fileLength === 'number' ? source.fileLength : undefined;
  if (declared !== undefined && declared > max)
    return fail({ code: 'media_too_large', title: `${type} media is ${declared} bytes; the limit is ${max} bytes`, retryable: false });
  const { DEFAULT_ORIGIN, getMediaKeys } = await loadLibrary();
  const url = mediaUrlOf(source, targets);
  if (!url.ok) return url;

  const keys = await getMediaKeys(Buffer.from(source.mediaKey, 'base64'), type as MediaType);
  let response;
  try {
    response = await safeFetch(
      url.value.toString(),
      { method: 'GET', headers: { origin: DEFAULT_ORIGIN }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) },
      targets,
    );
  } catch (err) {
    if (err instanceof UnsafeTargetError)
      return fail({ code: 'media_url_refused', title: `media URL refused: ${err.message}`, retryable: false });
    return fail({ code: 'media_unreachable', title: `media could not be fetched: ${(err as Error).message}`, retryable: true });
  }
  if (response.status >= 300) {
    await response.body?.cancel().catch(() => undefined);
    // The service keeps media a limited time; a missing file will not come back.
    const gone = response.status === 404 || response.status === 410;
    return fail({
      code: gone ? 'media_expired' : 'media_unreachable',
      title: gone ? `the service no longer holds this media (HTTP ${response.status})` : `the media host answered HTTP ${response.status}`,
      retryable: !gone && (response.status >= 500 || response.status === 429),
    });
  }
  const encrypted = response.body;
  if (!encrypted) return fail({ code: 'media_unreachable', title: 'the media host sent no body', retryable: true });
  const expectedSha =
    typeof source.fileSha256 === 'string' && source.fileSha256 !== '' ? Buffer.from(source.fileSha256, 'base64') : undefined;

  async function* decrypted(): AsyncGenerator<Uint8Array> {
    const decipher = createDecipheriv('aes-256-cbc', keys.cipherKey, keys.iv);
    const mac = createHmac('sha256', keys.macKey!).update(keys.iv);
    const sha = createHash('sha256');
    // The last MAC_LENGTH bytes are the MAC, not ciphertext: hold them back until the end.
    let tail = Buffer.alloc(0);
    let fetched = 0;
    try {
      for await (const chunk of encrypted!) {
        fetched += chunk.byteLength;
        if (fetched > max + 16 + MAC_LENGTH) throw new Error(`${type} media is over ${max} bytes`);
        const data = Buffer.concat([tail, chunk]);
        const cut = Math.max(0, data.length - MAC_LENGTH);
        tail = data.subarray(cut);
        const cipher = data.subarray(0, cut);
        if (cipher.length === 0) continue;
        mac.update(cipher);
        const plain = decipher.update(cipher);
        if (plain.length) {
          sha.update(plain);
          yield plain;
        }
      }
      if (tail.length !== MAC_LENGTH || !timingSafeEqual(mac.digest().subarray(0, MAC_LENGTH), tail))
        throw new Error('the media failed its integrity check (MAC)');
      const last = decipher.final();
      if (last.length) sha.update(last);
      if (expectedSha && !timingSafeEqual(sha.digest(), expectedSha)) throw new Error('the media failed its integrity check (SHA-256)');
      if (last.length) yield last;
    } finally {
      await encrypted!.cancel().catch(() => undefined);
    }
  }

  return {
    ok: true,
    value: {
      body: decrypted(),
      ...(typeof source.mimetype === 'string' ? { mimeType: source.mimetype } : {}),
      ...(declared !== undefined ? { size: declared } : {}),
    },
  };
}
