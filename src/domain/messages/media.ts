/**
 * Media limits, checked by the worker when it probes an outbound message's media URL (never on the
 * request path), and when it downloads an inbound message's media (inbound-media.ts):
 * image 5 MB JPEG or PNG; audio 16 MB AAC, AMR, MP3, M4A or OGG; video 16 MB MP4 or 3GPP;
 * document 100 MB; sticker WebP, 100 KB static or 500 KB animated.
 */
import { safeFetch, UnsafeTargetError, type TargetPolicy } from '../../lib/safe-fetch.ts';

export type MediaRule = { maxBytes: number; types: readonly string[] | null };

export const MEDIA_RULES: Record<string, MediaRule> = {
  image: { maxBytes: 5 * 1024 * 1024, types: ['image/jpeg', 'image/png'] },
  audio: {
    maxBytes: 16 * 1024 * 1024,
    types: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/m4a', 'audio/x-m4a', 'audio/ogg'],
  },
  video: { maxBytes: 16 * 1024 * 1024, types: ['video/mp4', 'video/3gpp'] },
  document: { maxBytes: 100 * 1024 * 1024, types: null },
  sticker: { maxBytes: 500 * 1024, types: ['image/webp'] },
};
export const STATIC_STICKER_MAX = 100 * 1024;

/** The kinds of media a message may carry (and a file may be uploaded as). */
export const MEDIA_KINDS = ['image', 'video', 'audio', 'document', 'sticker'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

/**
 * The types the provider takes an upload of, by kind (its supported-media table): MEDIA_RULES', and for
 * documents the text, PDF and Office formats. A sent URL's document may be anything; an upload may not.
 */
export const UPLOAD_TYPES: Record<MediaKind, readonly string[]> = {
  image: MEDIA_RULES.image!.types!,
  video: MEDIA_RULES.video!.types!,
  audio: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'],
  sticker: MEDIA_RULES.sticker!.types!,
  document: [
    'text/plain',
    'application/pdf',
    'application/msword',
    'application/vnd.ms-excel',
    'application/vnd.ms-powerpoint',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ],
};

/** How many times an inbound message's media download is tried before it fails (the `message.media` job's retries). */
export const MEDIA_DOWNLOAD_ATTEMPTS = 8;

/** The most bytes an inbound media of this message type may have (a type with no rule: a document's). */
export function inboundMediaLimit(type: string): number {
  return (MEDIA_RULES[type] ?? MEDIA_RULES.document!).maxBytes;
}

export type MediaProblem = { code: string; title: string };

/** WebP with an animation chunk (VP8X header with the animation flag). */
export function isAnimatedWebp(head: Uint8Array): boolean {
  const text = Buffer.from(head).toString('latin1');
  if (text.slice(0, 4) !== 'RIFF' || text.slice(8, 12) !== 'WEBP') return false;
  if (text.slice(12, 16) !== 'VP8X') return false;
  return ((head[20] ?? 0) & 0x02) !== 0;
}

/** Probes a message's media URL; undefined when it is within the limits of its type. */
export async function checkMedia(type: string, url: string, policy: TargetPolicy): Promise<MediaProblem | undefined> {
  const rule = MEDIA_RULES[type];
  if (!rule) return undefined;
  let response;
  try {
    response = await safeFetch(url, { method: 'GET', headers: { range: 'bytes=0-63' }, signal: AbortSignal.timeout(10_000) }, policy);
  } catch (err) {
    if (err instanceof UnsafeTargetError) return { code: 'media_url_refused', title: `media URL refused: ${err.message}` };
    return { code: 'media_unreachable', title: `media URL could not be fetched: ${(err as Error).message}` };
  }
  try {
    if (response.status >= 300) return { code: 'media_unreachable', title: `media URL answered HTTP ${response.status}` };
    const mime = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const range = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
    const size = range ? Number(range[1]) : Number(response.headers.get('content-length') ?? NaN);
    const head = new Uint8Array(await response.arrayBuffer()).slice(0, 64);
    if (rule.types && !rule.types.includes(mime)) {
      return {
        code: 'media_type_unsupported',
        title: `${type} media must be ${rule.types.join(', ')}; the URL serves ${mime || 'no content type'}`,
      };
    }
    if (!Number.isFinite(size)) return undefined;
    let max = rule.maxBytes;
    if (type === 'sticker' && !isAnimatedWebp(head)) max = STATIC_STICKER_MAX;
    if (size > max) {
      return {
        code: 'media_too_large',
        title: `${type === 'sticker' ? (max === STATIC_STICKER_MAX ? 'static sticker' : 'animated sticker') : type} media is ${size} bytes; the limit is ${max} bytes`,
      };
    }
    return undefined;
  } finally {
    await response.body?.cancel().catch(() => undefined);
  }
}

/** The media URLs a message's content carries, by the type whose limits apply, each with where it is in the content. */
export function mediaOf(type: string, content: Record<string, unknown>): Array<{ type: string; url: string; pointer: string }> {
  if (MEDIA_RULES[type] && typeof content.media_url === 'string') return [{ type, url: content.media_url, pointer: '/content/media_url' }];
  if (type === 'media_carousel' && Array.isArray(content.cards)) {
    return (content.cards as Array<{ media_type: string; media_url?: string }>).flatMap((c, i) =>
      typeof c.media_url === 'string' ? [{ type: c.media_type, url: c.media_url, pointer: `/content/cards/${i}/media_url` }] : [],
    );
  }
  return [];
}

/** Where a message's content sends media by the provider's id (media_id: a media message, a header, carousel cards). */
export function mediaIdsOf(type: string, content: Record<string, unknown>): string[] {
  const at = (value: unknown, pointer: string) =>
    typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).media_id === 'string'
      ? [`${pointer}/media_id`]
      : [];
  const cards =
    type === 'media_carousel' && Array.isArray(content.cards) ? content.cards.flatMap((card, i) => at(card, `/content/cards/${i}`)) : [];
  return [...(MEDIA_RULES[type] ? at(content, '/content') : []), ...at(content.header, '/content/header'), ...cards];
}
