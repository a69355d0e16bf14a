/** An inbound message's callback: the official webhook's `messages` entry, or the gateway's `message` event. */
import type { Executor } from '../../db/client.ts';
import { digitsOf, type SandboxCallback, type SandboxContext } from '../context.ts';
import { heldMediaSha256 } from '../media.ts';
import { lidOf } from '../rules.ts';
import { envelope, gatewayDelivery, metadata, officialDelivery, officialTarget, post, type Delivery } from './delivery.ts';
import { loadMedia, loadMessage } from './load.ts';

export async function deliverInbound(
  ctx: SandboxContext,
  db: Executor,
  payload: Extract<SandboxCallback, { kind: 'message.inbound' }>,
  eventId: string,
) {
  const found = await loadMessage(db, payload.message_id);
  if (!found) {
    ctx.logger.warn({ message_id: payload.message_id }, 'sandbox inbound callback for an unknown message dropped');
    return;
  }
  const { message, account } = found;
  const stored = message.body as InboundBody;
  let delivery: Delivery | undefined;
  if (account.protocol === 'official') {
    if (!officialTarget(ctx, account)) return;
    const entry: Record<string, unknown> = { from: message.recipient, id: message.id, timestamp: stored.timestamp, type: message.type };
    if (stored.reply_to) entry.context = { from: digitsOf(account.displayPhoneNumber), id: stored.reply_to };
    const content = stored.content;
    if (message.type === 'text') entry.text = { body: content.body };
    else if (message.type === 'interactive') {
      const kind = content.type as string;
      entry.interactive = {
        type: kind,
        [kind]: {
          id: content.id,
          title: content.title,
          ...(content.description !== undefined ? { description: content.description } : {}),
        },
      };
    } else if (message.type === 'button') entry.button = pick(content, ['payload', 'text']);
    else if (message.type === 'location') entry.location = pick(content, ['latitude', 'longitude', 'name', 'address']);
    else if (message.type === 'order') entry.order = pick(content, ['catalog_id', 'text', 'product_items']);
    else if (stored.media_id) {
      const media = await loadMedia(db, stored.media_id);
      entry[message.type] = {
        ...(content.caption !== undefined ? { caption: content.caption } : {}),
        ...(content.file_name !== undefined ? { filename: content.file_name } : {}),
        mime_type: media?.mimeType ?? 'image/png',
        sha256: media ? await heldMediaSha256(media) : '',
        id: stored.media_id,
        ...(message.type === 'sticker' ? { animated: false } : {}),
      };
    }
    delivery = officialDelivery(
      ctx,
      envelope(account, 'messages', {
        messaging_product: 'whatsapp',
        metadata: metadata(account),
        contacts: [{ profile: { name: stored.name }, wa_id: message.recipient }],
        messages: [entry],
      }),
    );
  } else {
    let content: Record<string, unknown> = stored.content;
    if (stored.media_id) {
      const media = await loadMedia(db, stored.media_id);
      content = { media_id: stored.media_id, mime_type: media?.mimeType ?? 'image/png', ...stored.content };
    }
    delivery = gatewayDelivery(ctx, account, eventId, 'message', {
      id: message.id,
      from: message.recipient,
      from_lid: lidOf(message.recipient),
      from_name: stored.name,
      type: message.type,
      content,
      ...(stored.reply_to ? { reply_to: stored.reply_to } : {}),
      ...(stored.chat ? { chat: stored.chat } : {}),
    });
    if (!delivery) ctx.logger.info({ session: account.id }, 'sandbox gateway callback not sent: the session has no callback_url');
  }
  if (delivery) await post(ctx, delivery);
}

/** What an inbound message row keeps in its body (see ../inbound.ts). */
export type InboundBody = {
  name: string;
  timestamp: string;
  content: Record<string, unknown>;
  reply_to?: string;
  media_id?: string;
  /** A contact's status post: status@broadcast. */
  chat?: string;
};

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]]));
}
