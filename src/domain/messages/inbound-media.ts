/**
 * Inbound media, stored on arrival: a provider's link to a customer's picture expires (minutes to
 * days), so an inbound message that carries media gets a `message_media` row (pending) and a
 * `message.media` job in the transaction that stores the message. The job downloads the bytes
 * through the channel's adapter into the media store, counting, hashing and sniffing them on the
 * way, and stops at the type's size limit with nothing left behind. GET /v1/messages/{id}/media
 * serves what was stored.
 */
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import type { Db, Executor } from '../../db/client.ts';
import { messageMedia, messages } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { InboundMedia, Platform, ProviderError } from '../../providers/provider.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import type { ByteRange, MediaStore } from '../../storage/media-store.ts';
import type { Actor } from '../actor.ts';
import { connectionOf, findChannel } from '../channels/channels.ts';
import { DomainError, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import type { MessageMediaRow } from './messages.ts';
import { inboundMediaLimit, isAnimatedWebp, MEDIA_DOWNLOAD_ATTEMPTS, STATIC_STICKER_MAX } from './media.ts';

export type { MessageMediaRow };
export type MediaStatus = 'pending' | 'stored' | 'failed';

/** What file-type needs to see to tell a type (its documented sample size). */
const SNIFF_BYTES = 4100;
/** Served when the bytes tell nothing (text, unknown formats): never the provider's declared type. */
export const UNKNOWN_CONTENT_TYPE = 'application/octet-stream';

/** The store key of a message's media: under its organization, so one organization's objects can be found (and removed) together. */
export function mediaKey(organizationId: string, messageId: string): string {
  return `${organizationId}/${messageId}`;
}

export type MediaRecordDeps = { queue: Pick<Queue, 'enqueue'> };

/**
 * Records that an inbound message (or an echo of the business's own) carries media, in the caller's
 * transaction: the pending row and its download job commit with the message, or neither does.
 * A second call for the same message records nothing more.
 */
export async function recordInboundMedia(
  deps: MediaRecordDeps,
  tx: Executor,
  message: { id: string; organizationId: string },
  media: InboundMedia,
  at: Date,
): Promise<void> {
  const inserted = await tx
    .insert(messageMedia)
    .values({
      messageId: message.id,
      organizationId: message.organizationId,
      status: 'pending',
      declaredType: media.mimeType?.slice(0, 255) ?? null,
      fileName: media.fileName ? safeFileName(media.fileName) : null,
      size: media.size ?? null,
      source: media.source,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing()
    .returning({ id: messageMedia.messageId });
  if (inserted.length === 0) return;
  await deps.queue.enqueue(tx, 'message.media', { message_id: message.id }, { singletonKey: message.id });
}

/** A file name as the provider gave it, without path parts or control characters, at most 255 characters. */
function safeFileName(name: string): string | null {
  const base = name
    .split(/[\\/]/)
    .pop()!
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  return base === '' || base === '.' || base === '..' ? null : base;
}

export type MediaStoreDeps = {
  db: Db;
  clock: Clock;
  sealer: Sealer;
  providers: ProviderRegistry;
  store: MediaStore;
  logger: Logger;
};

/** The body passed the type's limit; thrown through the store's put, which then keeps nothing. */
export class MediaTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number, kind: string) {
    super(`${kind} media is larger than the limit of ${limit} bytes`);
    this.limit = limit;
  }
}

/** A transient fault: the job is retried (with its backoff) while attempts remain. */
export class MediaRetryError extends Error {}

/**
 * Downloads and stores one message's media (the `message.media` job). Runs once per message in
 * effect: a row no longer pending is left alone, the object's key is the message's, and only the
 * run that moves the row from pending records the outcome. Throws MediaRetryError for a fault worth
 * retrying while attempts remain; a database error throws too (the job is retried).
 */
export async function storeInboundMedia(deps: MediaStoreDeps, input: { messageId: string }): Promise<void> {
  const { db, clock, store } = deps;
  const [found] = await db
    .select({ media: messageMedia, message: messages })
    .from(messageMedia)
    .innerJoin(messages, eq(messages.id, messageMedia.messageId))
    .where(eq(messageMedia.messageId, input.messageId))
    .limit(1);
  if (!found || found.media.status !== 'pending') return;
  const { media, message } = found;
  const attempt = media.attempts + 1;
  await db.update(messageMedia).set({ attempts: attempt, updatedAt: clock.now() }).where(eq(messageMedia.messageId, media.messageId));

  const channel = await findChannel(db, message.channelId);
  if (!channel)
    return finish(deps, found, {
      status: 'failed',
      code: 'channel_deleted',
      title: 'the channel was deleted before its media was downloaded',
    });
  const adapter = deps.providers.get(channel.platform as Platform);
  if (!adapter.downloadMedia)
    return finish(deps, found, { status: 'failed', code: 'media_unsupported', title: "the channel's provider offers no media download" });

  const limit = inboundMediaLimit(message.type);
  const kind = message.type;
  if (media.size !== null && media.size > limit) return finish(deps, found, tooLarge(kind, limit, media.size));

  const result = await adapter.downloadMedia(connectionOf(channel, deps.sealer), media.source);
  if (!result.ok) return providerFault(deps, found, attempt, result.error);
  const download = result.value;
  if (download.size !== undefined && download.size > limit) {
    await closeBody(download.body);
    return finish(deps, found, tooLarge(kind, limit, download.size));
  }

  const key = mediaKey(message.organizationId, message.id);
  let outcome: { contentType: string; size: number; sha256: string };
  try {
    outcome = await copyMediaIntoStore(store, key, download.body, kind, limit);
  } catch (err) {
    // Nothing half-stored: the store's put keeps nothing of a failed body; the delete covers a
    // store that could not tell (and an object a run before this one may have left).
    await store
      .delete(key)
      .catch((cause) => deps.logger.warn({ err: cause, message_id: message.id }, 'could not remove a partial media object'));
    if (err instanceof MediaTooLargeError) return finish(deps, found, tooLarge(kind, err.limit));
    return providerFault(deps, found, attempt, {
      code: 'download_failed',
      title: `the media could not be downloaded and stored: ${(err as Error).message}`,
      retryable: true,
    });
  }
  const { contentType, size, sha256 } = outcome;
  await finish(deps, found, { status: 'stored', key, contentType, size, sha256 });
}

function tooLarge(kind: string, limit: number, size?: number): Outcome {
  const what = kind === 'sticker' ? (limit === STATIC_STICKER_MAX ? 'static sticker' : 'animated sticker') : kind;
  return {
    status: 'failed',
    code: 'media_too_large',
    title: `${what} media is ${size !== undefined ? `${size} bytes` : 'larger than the limit'}; the limit is ${limit} bytes`,
  };
}

/** A provider's refusal: retried while it is transient and attempts remain, else the media fails with the provider's code. */
async function providerFault(deps: MediaStoreDeps, found: Found, attempt: number, error: ProviderError): Promise<void> {
  if (error.retryable && attempt < MEDIA_DOWNLOAD_ATTEMPTS) {
    await deps.db
      .update(messageMedia)
      .set({ errorCode: error.code.slice(0, 100), errorTitle: error.title.slice(0, 500), updatedAt: deps.clock.now() })
      .where(and(eq(messageMedia.messageId, found.media.messageId), eq(messageMedia.status, 'pending')));
    throw new MediaRetryError(
      `media download of message ${found.message.id} failed (attempt ${attempt} of ${MEDIA_DOWNLOAD_ATTEMPTS}): ${error.code} ${error.title}`,
    );
  }
  return finish(deps, found, { status: 'failed', code: error.code.slice(0, 100), title: error.title.slice(0, 500) });
}

type Found = { media: MessageMediaRow; message: typeof messages.$inferSelect };
type Outcome =
  | { status: 'stored'; key: string; contentType: string; size: number; sha256: string }
  | { status: 'failed'; code: string; title: string };

/** Records the outcome with its event, once: only the run that moves the row from pending does. */
async function finish(deps: MediaStoreDeps, found: Found, outcome: Outcome): Promise<void> {
  const now = deps.clock.now();
  const { message } = found;
  await deps.db.transaction(async (tx) => {
    const moved = await tx
      .update(messageMedia)
      .set(
        outcome.status === 'stored'
          ? {
              status: 'stored',
              storageKey: outcome.key,
              contentType: outcome.contentType,
              size: outcome.size,
              sha256: outcome.sha256,
              errorCode: null,
              errorTitle: null,
              storedAt: now,
              updatedAt: now,
            }
          : { status: 'failed', errorCode: outcome.code, errorTitle: outcome.title, updatedAt: now },
      )
      .where(and(eq(messageMedia.messageId, message.id), eq(messageMedia.status, 'pending')))
      .returning({ id: messageMedia.messageId });
    if (moved.length === 0) return;
    await recordEvent(
      tx,
      message.organizationId,
      'message.media_updated',
      {
        message_id: message.id,
        conversation_id: message.conversationId,
        channel_id: message.channelId,
        media_status: outcome.status,
        error_code: outcome.status === 'failed' ? outcome.code : null,
        organization_id: message.organizationId,
      },
      now,
    );
  });
  if (outcome.status === 'failed') deps.logger.info({ message_id: message.id, code: outcome.code }, 'inbound media not stored');
}

async function closeBody(body: AsyncIterable<Uint8Array>): Promise<void> {
  await body[Symbol.asyncIterator]()
    .return?.()
    .catch(() => undefined);
}

/**
 * Reads the first bytes to sniff the type (and, for a sticker, whether it is animated, which sets
 * its limit), then streams everything into the store while counting and hashing; passing the limit
 * throws MediaTooLargeError out of the store's put (which keeps nothing).
 */
export async function copyMediaIntoStore(
  store: MediaStore,
  key: string,
  source: AsyncIterable<Uint8Array>,
  kind: string,
  typeLimit: number,
): Promise<{ contentType: string; size: number; sha256: string }> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    const headChunks: Uint8Array[] = [];
    let headBytes = 0;
    let ended = false;
    while (headBytes < SNIFF_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      headChunks.push(next.value);
      headBytes += next.value.length;
      if (headBytes > typeLimit) throw new MediaTooLargeError(typeLimit, kind);
    }
    const head = Buffer.concat(headChunks);
    const sniffed = await fileTypeFromBuffer(head.subarray(0, SNIFF_BYTES));
    const contentType = sniffed?.mime ?? UNKNOWN_CONTENT_TYPE;
    const limit = kind === 'sticker' && !isAnimatedWebp(head) ? Math.min(typeLimit, STATIC_STICKER_MAX) : typeLimit;
    const hash = createHash('sha256');
    let size = 0;
    const count = (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > limit) throw new MediaTooLargeError(limit, kind);
      hash.update(chunk);
      return chunk;
    };
    async function* body(): AsyncIterable<Uint8Array> {
      if (head.length > 0) yield count(head);
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        if (next.value.length > 0) yield count(next.value);
      }
    }
    await store.put(key, body(), { contentType });
    return { contentType, size, sha256: hash.digest('hex') };
  } finally {
    // Releases the download's connection when it stopped early (a limit passed, the store failed).
    await iterator.return?.().catch(() => undefined);
  }
}

/** A message's stored media, ready to be read whole or by range. */
export type OpenedMedia = {
  media: MessageMediaRow & { status: 'stored'; contentType: string; size: number; sha256: string; storageKey: string };
  /** The message's type (image, document, ...): how the media is meant to be shown. */
  messageType: string;
  /** The bytes (of the range, when one is given); not found when the store lost the object. */
  read(range?: ByteRange): Promise<AsyncIterable<Uint8Array>>;
};

/**
 * A message's stored media, for the actor's organization. Another organization's message, an
 * unknown id and a message without media are not found; media still pending or failed is a conflict
 * naming its status (and the failure's code).
 */
export async function openMessageMedia(deps: { db: Executor; store: MediaStore }, actor: Actor, messageId: string): Promise<OpenedMedia> {
  if (!isUuid(messageId)) throw notFound('message');
  const [found] = await deps.db
    .select({ type: messages.type, media: messageMedia })
    .from(messages)
    .leftJoin(messageMedia, eq(messageMedia.messageId, messages.id))
    .where(and(eq(messages.id, messageId), eq(messages.organizationId, actor.organizationId)))
    .limit(1);
  if (!found) throw notFound('message');
  const media = found.media;
  if (!media) throw new DomainError('not_found', 'the message has no media');
  if (
    media.status !== 'stored' ||
    media.storageKey === null ||
    media.contentType === null ||
    media.size === null ||
    media.sha256 === null
  ) {
    throw new DomainError(
      'conflict',
      media.status === 'failed'
        ? `the message's media could not be stored: ${media.errorTitle ?? media.errorCode ?? 'unknown error'}`
        : "the message's media is still being downloaded; try again shortly",
      {
        extra: {
          media_status: media.status,
          ...(media.status === 'failed' ? { media_error: { code: media.errorCode, title: media.errorTitle } } : {}),
        },
      },
    );
  }
  const stored = media as OpenedMedia['media'];
  return {
    media: stored,
    messageType: found.type,
    async read(range) {
      const object = await deps.store.get(stored.storageKey, range);
      if (!object) throw new DomainError('not_found', "the message's media is missing from the media store");
      return object.body;
    },
  };
}
