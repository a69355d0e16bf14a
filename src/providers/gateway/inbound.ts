/**
 * Gateway callbacks: verify X-Gateway-Signature over the raw body with the channel's callback
 * secret first, then normalize into Parley's inbound events (routed by session id).
 */
import { GROUP_RECIPIENT } from '../capabilities.ts';
import type { InboundEvent, InboundMedia, ProviderInbound } from '../provider.ts';
import { verifyBodySignature } from '../signature.ts';
import { channelStatusOf } from './mapping.ts';

export const SIGNATURE_HEADER = 'x-gateway-signature';
export const EVENT_ID_HEADER = 'x-gateway-event-id';

export function verifyGatewaySignature(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  return verifyBodySignature(rawBody, header, [secret]);
}

type Json = Record<string, any>;

/** Message types whose content names a media the gateway holds (docs/gateway-protocol.md). */
const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);

export function normalizeGatewayCallback(body: unknown): InboundEvent[] {
  const b = body as Json;
  const ref = String(b?.session ?? '');
  const p = (b?.payload ?? {}) as Json;
  const timestamp = b?.timestamp ? new Date(b.timestamp) : new Date();
  switch (b?.event) {
    case 'session.status':
      return [
        {
          kind: 'channel.status',
          ref,
          status: channelStatusOf(String(p.status)),
          reason: p.reason ? String(p.reason) : `gateway session ${String(p.status).toLowerCase()}`,
          reasonCode: String(p.status),
          phone: p.me?.phone ? String(p.me.phone) : undefined,
          ...(b?.timestamp && !Number.isNaN(timestamp.getTime()) ? { timestamp } : {}),
        },
      ];
    case 'message.status': {
      const event = statusEvent(ref, p, timestamp);
      return event ? [event] : [];
    }
    // Many statuses in one callback (gateway-protocol.md): `{statuses: [{id, status, error?}, ...]}`.
    case 'message.statuses':
      return (Array.isArray(p.statuses) ? (p.statuses as Json[]) : []).flatMap((one) => {
        const event = one && typeof one === 'object' ? statusEvent(ref, one, timestamp) : undefined;
        return event ? [event] : [];
      });
    case 'message': {
      const content = (p.content ?? {}) as Json;
      const type = String(p.type ?? 'text');
      const media = mediaOf(type, content);
      const from = String(p.from ?? '').replace(/^\+/, '');
      return [
        {
          kind: 'message.inbound',
          ref,
          providerMessageId: String(p.id),
          from,
          profileName: p.from_name ? String(p.from_name) : undefined,
          identities: identitiesOf(from, p.from_lid),
          timestamp,
          type,
          content,
          replyTo: p.reply_to ? String(p.reply_to) : undefined,
          ...(media ? { media } : {}),
        },
      ];
    }
    // The business's own activity on its phone and the senders' edits and deletions (gateway-protocol.md).
    case 'message.echo': {
      const to = String(p.to ?? '').replace(/^\+/, '');
      if (!p.id || !/^\d{5,20}$/.test(to)) return [];
      const type = String(p.type ?? 'text');
      const content = (p.content && typeof p.content === 'object' ? p.content : {}) as Json;
      const media = mediaOf(type, content);
      return [
        {
          kind: 'message.echo',
          ref,
          providerMessageId: String(p.id),
          to,
          timestamp,
          type,
          content,
          ...(p.reply_to ? { replyTo: String(p.reply_to) } : {}),
          ...(media ? { media } : {}),
        },
      ];
    }
    case 'message.edited':
      if (!p.id || !p.content || typeof p.content !== 'object') return [];
      return [{ kind: 'message.edited', ref, providerMessageId: String(p.id), content: p.content as Json, timestamp }];
    case 'message.deleted':
      if (!p.id) return [];
      return [{ kind: 'message.deleted', ref, providerMessageId: String(p.id), timestamp }];
    // A call to the session's number and what became of it: `{id, from, from_lid?, from_name?, status, video?, group?}`.
    case 'call': {
      const from = String(p.from ?? '').replace(/^\+/, '');
      const status = String(p.status);
      if (!p.id || !/^\d{5,20}$/.test(from) || !CALL_STATUSES.has(status)) return [];
      return [
        {
          kind: 'call',
          ref,
          callId: String(p.id),
          from,
          ...(p.from_name ? { profileName: String(p.from_name) } : {}),
          identities: identitiesOf(from, p.from_lid),
          status: status as Extract<InboundEvent, { kind: 'call' }>['status'],
          video: p.video === true,
          ...(typeof p.group === 'string' && GROUP_RECIPIENT.test(p.group) ? { group: p.group } : {}),
          timestamp,
        },
      ];
    }
    default:
      return [];
  }
}

const CALL_STATUSES = new Set(['offer', 'accept', 'reject', 'timeout', 'terminate']);

/** The sender's identities: the number, and the privacy id where the gateway gave it (`from_lid`: digits). */
function identitiesOf(from: string, lid: unknown): Array<{ type: string; value: string }> {
  const privacyId = typeof lid === 'string' ? /^(\d{5,25})(@lid)?$/.exec(lid)?.[1] : undefined;
  return [{ type: 'chatapp_id', value: from }, ...(privacyId ? [{ type: 'linked_id', value: privacyId }] : [])];
}

/** A media message's media, fetched later by its id with the protocol's media call. */
function mediaOf(type: string, content: Json): InboundMedia | undefined {
  if (!MEDIA_TYPES.has(type) || typeof content.media_id !== 'string' || content.media_id === '') return undefined;
  return {
    source: { media_id: content.media_id },
    ...(typeof content.mime_type === 'string' ? { mimeType: content.mime_type } : {}),
    ...(typeof content.file_name === 'string' ? { fileName: content.file_name } : {}),
  };
}

function statusEvent(ref: string, p: Json, timestamp: Date): InboundEvent | undefined {
  const s = String(p.status);
  if (s !== 'sent' && s !== 'delivered' && s !== 'read' && s !== 'failed') return undefined;
  return {
    kind: 'message.status',
    ref,
    providerMessageId: String(p.id),
    status: s,
    timestamp,
    ...(p.error ? { error: { code: String(p.error.code), title: String(p.error.message ?? p.error.code) } } : {}),
  };
}

export const gatewayInbound: ProviderInbound = {
  signatureHeader: SIGNATURE_HEADER,
  deliveryIdHeader: EVENT_ID_HEADER,
  verify: (rawBody, header, secrets) => verifyBodySignature(rawBody, header, secrets),
  normalize: normalizeGatewayCallback,
};
