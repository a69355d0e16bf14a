/**
 * Uploading a file to a channel's provider (platforms with `media.upload`), so that large or private
 * files need no public URL: the file is held to the provider's limits for its kind (type and size,
 * domain/messages/media.ts) before the provider is called, and the provider's media id comes back,
 * for sending with `media_id`.
 */
import { fileTypeFromBuffer } from 'file-type';
import type { Actor } from '../actor.ts';
import { DomainError, invalid } from '../errors.ts';
import { isAnimatedWebp, MEDIA_KINDS, MEDIA_RULES, STATIC_STICKER_MAX, UPLOAD_TYPES, type MediaKind } from '../messages/media.ts';
import { assertOperation } from './capabilities.ts';
import { connectionOf, loadChannel, recordProviderFault } from './channels.ts';
import { providerRefusal, type ProviderCallDeps } from './pairing.ts';

export type MediaUploadInput = {
  channelId: string;
  /** The kind asked for; told by the file's type when absent. */
  kind?: string;
  bytes: Uint8Array<ArrayBuffer>;
  /** The type the client declared for the file (its part's Content-Type). */
  declaredType?: string;
  fileName?: string;
};

export type UploadedMedia = { mediaId: string; kind: MediaKind; mimeType: string; size: number; fileName: string | null };

/** What file-type needs to see to tell a type. */
const SNIFF_BYTES = 4100;
/** Types the bytes tell that only name a container: the declared type says which format in it (an Office file). */
const CONTAINERS = new Set(['application/x-cfb', 'application/zip']);
/** Other names of the provider's types. */
const ALIASES: Record<string, string> = {
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/opus': 'audio/ogg',
  'video/3gp': 'video/3gpp',
  'image/jpg': 'image/jpeg',
};

const mediaType = (value: string | undefined) => {
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type ? (ALIASES[type] ?? type) : undefined;
};

const refuse = (message: string) => new DomainError('unsupported', message, { fieldErrors: [{ pointer: '/file', message }] });

/** The kind a type is sent as, when the client does not say. */
function kindOf(mimeType: string): MediaKind {
  if (mimeType === 'image/webp') return 'sticker';
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  return 'document';
}

/** The file's type, kind and limits checked as the provider checks them; throws the refusal naming /file or /type. */
async function checkFile(input: MediaUploadInput): Promise<{ kind: MediaKind; mimeType: string }> {
  if (input.kind !== undefined && !(MEDIA_KINDS as readonly string[]).includes(input.kind))
    throw invalid(`type must be one of ${MEDIA_KINDS.join(', ')}, not ${JSON.stringify(input.kind)}`, [
      { pointer: '/type', message: `one of ${MEDIA_KINDS.join(', ')}` },
    ]);
  if (input.bytes.length === 0) throw invalid('the file is empty', [{ pointer: '/file', message: 'empty' }]);
  const sniffed = mediaType((await fileTypeFromBuffer(input.bytes.subarray(0, SNIFF_BYTES)))?.mime);
  const declared = mediaType(input.declaredType);
  // The bytes' word where they tell a type; the declared one where they tell none (plain text) or only a container.
  const mimeType = sniffed && !(CONTAINERS.has(sniffed) && declared) ? sniffed : declared;
  if (!mimeType || mimeType === 'application/octet-stream')
    throw refuse("the file's type cannot be told from its bytes: give its form part the Content-Type of the file");
  const kind = (input.kind as MediaKind | undefined) ?? kindOf(mimeType);
  const types = UPLOAD_TYPES[kind];
  if (!types.includes(mimeType)) throw refuse(`${kind} media must be ${types.join(', ')}; the file is ${mimeType}`);
  const animated = kind === 'sticker' && isAnimatedWebp(input.bytes.subarray(0, 64));
  const max = kind === 'sticker' && !animated ? STATIC_STICKER_MAX : MEDIA_RULES[kind]!.maxBytes;
  if (input.bytes.length > max) {
    const what = kind === 'sticker' ? `${animated ? 'an animated' : 'a static'} sticker` : `${kind} media`;
    throw refuse(`the file is ${input.bytes.length} bytes; ${what} is at most ${max} bytes`);
  }
  return { kind, mimeType };
}

/** Uploads a file to the channel's provider; answers the provider's media id for sending it by `media_id`. */
export async function uploadChannelMedia(deps: ProviderCallDeps, actor: Actor, input: MediaUploadInput): Promise<UploadedMedia> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'media.upload', 'media upload');
  const upload = deps.providers.get(row.platform).uploadMedia;
  // The support matrix and the adapter are the module's: a row naming media.upload comes with the call.
  if (!upload) throw new Error(`platform ${row.platform} lists media.upload without an adapter call for it`);
  const { kind, mimeType } = await checkFile(input);
  const fileName = input.fileName || undefined;
  const result = await upload(connectionOf(row, deps.sealer), { bytes: input.bytes, mimeType, ...(fileName ? { fileName } : {}) });
  if (!result.ok) {
    await recordProviderFault(deps, row, result.error);
    throw providerRefusal(result.error);
  }
  return { mediaId: result.value.mediaId, kind, mimeType, size: input.bytes.length, fileName: fileName ?? null };
}
