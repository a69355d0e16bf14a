/**
 * The business cloud API's webhook: verify X-Hub-Signature-256 over the raw body first, then
 * normalize its entries into Parley's inbound events, routed by phone_number_id (messages and
 * statuses) or by business account id (template decisions).
 */
import type { InboundEvent } from '../provider.ts';
import { verifyBodySignature } from '../signature.ts';
import { templateStatusName } from './adapter.ts';

export const SIGNATURE_HEADER = 'x-hub-signature-256';

export function verifyOfficialSignature(rawBody: Buffer, header: string | undefined, appSecrets: readonly string[]): boolean {
  return verifyBodySignature(rawBody, header, appSecrets);
}

type Json = Record<string, any>;

const seconds = (value: unknown): Date => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000) : new Date();
};

/** One inbound message's content in Parley's shape (what GET /v1/messages/{id} shows). */
function inboundContent(message: Json): { type: string; content: Json } {
  const type = String(message.type ?? 'unknown');
  switch (type) {
    case 'text':
      return { type, content: { body: message.text?.body ?? '' } };
    case 'interactive': {
      const kind = message.interactive?.type as string | undefined;
      const reply = kind ? message.interactive?.[kind] : undefined;
      return { type, content: { type: kind, id: reply?.id, title: reply?.title, ...(reply?.description ? { description: reply.description } : {}) } };
    }
    case 'button':
      return { type: 'interactive', content: { type: 'button_reply', id: message.button?.payload, title: message.button?.text } };
    case 'location':
      return { type, content: { ...message.location } };
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const m = message[type] ?? {};
      return {
        type,
        content: { media_id: m.id, mime_type: m.mime_type, ...(m.sha256 ? { sha256: m.sha256 } : {}), ...(m.caption ? { caption: m.caption } : {}), ...(m.filename ? { file_name: m.filename } : {}) },
      };
    }
    case 'reaction':
      return { type, content: { message_id: message.reaction?.message_id, reaction: message.reaction?.emoji ?? '' } };
    case 'contacts':
      return { type: 'contact', content: { contacts: message.contacts ?? [] } };
    default:
      return { type, content: { ...(message[type] && typeof message[type] === 'object' ? message[type] : {}) } };
  }
}

export function normalizeOfficialWebhook(payload: unknown): InboundEvent[] {
  const body = payload as Json;
  const out: InboundEvent[] = [];
  for (const entry of Array.isArray(body?.entry) ? body.entry : []) {
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      const value = change?.value ?? {};
      if (change?.field === 'messages') {
        const ref = String(value.metadata?.phone_number_id ?? '');
        if (!ref) continue;
        const names = new Map<string, { name?: string; userId?: string }>(
          (value.contacts ?? []).map((c: Json) => [String(c.wa_id), { name: c.profile?.name, userId: c.user_id }]),
        );
        for (const status of value.statuses ?? []) {
          const s = String(status.status);
          if (s !== 'sent' && s !== 'delivered' && s !== 'read' && s !== 'failed') continue;
          const err = status.errors?.[0];
          out.push({
            kind: 'message.status',
            ref,
            providerMessageId: String(status.id),
            status: s,
            timestamp: seconds(status.timestamp),
            ...(typeof status.biz_opaque_callback_data === 'string' ? { callbackData: status.biz_opaque_callback_data } : {}),
            ...(err ? { error: { code: String(err.code), title: String(err.title ?? err.message ?? 'failed'), message: err.error_data?.details ?? err.message } } : {}),
          });
        }
        for (const message of value.messages ?? []) {
          const { type, content } = inboundContent(message);
          const from = String(message.from ?? '');
          const profile = names.get(from);
          out.push({
            kind: 'message.inbound',
            ref,
            providerMessageId: String(message.id),
            from,
            profileName: profile?.name,
            identities: [
              { type: 'chatapp_id', value: from },
              ...(profile?.userId ? [{ type: 'business_scoped_user_id', value: String(profile.userId) }] : []),
            ],
            timestamp: seconds(message.timestamp),
            type,
            content,
            replyTo: message.context?.id,
          });
        }
      } else if (change?.field === 'message_template_status_update') {
        out.push({
          kind: 'template.status',
          ref: String(entry.id ?? ''),
          providerTemplateId: String(value.message_template_id ?? ''),
          name: value.message_template_name,
          language: value.message_template_language,
          status: templateStatusName(String(value.event ?? '')),
          reason: value.reason && value.reason !== 'NONE' ? String(value.reason) : undefined,
        });
      } else if (change?.field === 'account_update' || change?.field === 'phone_number_quality_update') {
        const ref = String(value.phone_number_id ?? value.metadata?.phone_number_id ?? '');
        const event = String(value.event ?? '');
        if (ref && /DISABLED|BANNED|FLAGGED|RESTRICTED/i.test(event)) {
          out.push({ kind: 'channel.status', ref, status: 'error', reason: `provider reported ${event}`, reasonCode: event });
        }
      }
    }
  }
  return out;
}
