/**
 * Parley's types to the business cloud API's and back. The channel-centric message (type + content)
 * becomes the provider's native body: one object named after the type, interactive types under
 * `interactive`, quotes under `context`.
 */
import type {
  AdapterCalls,
  AdapterOptions,
  ChannelConnection,
  HealthCheck,
  OutboundMessage,
  ProviderTemplate,
  Result,
  SignupExchange,
} from '../provider.ts';
import { FormData } from 'undici';
import { downloadStream } from '../http.ts';
import { createGraphClient, type GraphClient } from './client.ts';
import { templateStatusName } from './mapping.ts';

type Json = Record<string, unknown>;

export type OfficialSettings = { api_base: string; api_version: string; phone_number_id: string; waba_id?: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const text = (body: unknown) => ({ text: String(body ?? '') });

/** A media object: the provider's id of an upload, else the link; a caption and a file name where the kind has them. */
function media(content: Json, withCaption: boolean, withFilename = false): Json {
  const link = str(content.media_url);
  const id = str(content.media_id);
  return {
    ...(id ? { id } : { link }),
    ...(withCaption && str(content.caption) ? { caption: content.caption } : {}),
    ...(withFilename && str(content.file_name) ? { filename: content.file_name } : {}),
  };
}

function header(content: Json): Json | undefined {
  const h = content.header;
  if (typeof h === 'string') return { type: 'text', text: h };
  if (h && typeof h === 'object') {
    const hh = h as Json;
    const type = str(hh.type) ?? 'text';
    if (type === 'text') return { type: 'text', text: hh.text };
    // A document header shows its file name.
    return { type, [type]: media(hh, false, true) };
  }
  return undefined;
}

function interactive(type: string, content: Json, action: Json, extra: Json = {}): Json {
  const h = header(content);
  return {
    type: 'interactive',
    interactive: {
      type,
      ...(h ? { header: h } : {}),
      ...(content.body !== undefined ? { body: text(content.body) } : {}),
      ...(str(content.footer) ? { footer: text(content.footer) } : {}),
      action,
      ...extra,
    },
  };
}

/** The fields of `source` that are set, renamed to the provider's names (`[ours, theirs]`). */
function present(source: Json, names: Array<[string, string]>): Json {
  return Object.fromEntries(
    names.filter(([ours]) => source[ours] !== undefined && source[ours] !== '').map(([ours, theirs]) => [theirs, source[ours]]),
  );
}

/** A shared contact card as the provider's contacts object: name parts, numbers, emails, URLs, addresses, organization. */
function contactCard(c: Json): Json {
  const nameParts = present(c, [
    ['first_name', 'first_name'],
    ['middle_name', 'middle_name'],
    ['last_name', 'last_name'],
    ['name_prefix', 'prefix'],
    ['name_suffix', 'suffix'],
  ]);
  // The provider wants a part besides the formatted name: without any, the first word is the first name.
  if (Object.keys(nameParts).length === 0) nameParts.first_name = String(c.full_name ?? '').split(' ')[0];
  // The provider's types are HOME and WORK only; an entry without one is sent without.
  const phones = [
    ...(str(c.phone) ? [{ phone: c.phone, ...(str(c.phone_type) ? { type: c.phone_type } : {}) }] : []),
    ...((c.phones as Json[]) ?? []),
  ];
  const org = present(c, [
    ['organization', 'company'],
    ['department', 'department'],
    ['job_title', 'title'],
  ]);
  return {
    name: { formatted_name: c.full_name, ...nameParts },
    phones,
    ...(Array.isArray(c.emails) && c.emails.length > 0 ? { emails: c.emails } : {}),
    ...(Array.isArray(c.urls) && c.urls.length > 0 ? { urls: c.urls } : {}),
    ...(Array.isArray(c.addresses) && c.addresses.length > 0 ? { addresses: c.addresses } : {}),
    ...(Object.keys(org).length > 0 ? { org } : {}),
    ...(str(c.birthday) ? { birthday: c.birthday } : {}),
  };
}

/** The native body for one message (without the common envelope). */
export function toNativeBody(message: OutboundMessage): Json {
  const c = message.content;
  switch (message.type) {
    case 'text':
      return { type: 'text', text: { body: c.body, preview_url: c.preview_url === true } };
    case 'image':
    case 'video':
      return { type: message.type, [message.type]: media(c, true) };
    case 'audio':
    case 'sticker':
      return { type: message.type, [message.type]: media(c, false) };
    case 'document':
      return { type: 'document', document: media(c, true, true) };
    case 'location':
      return { type: 'location', location: { latitude: c.latitude, longitude: c.longitude, name: c.name, address: c.address } };
    case 'location_request':
      return interactive('location_request_message', { body: c.body }, { name: 'send_location' });
    case 'contact':
      return { type: 'contacts', contacts: [contactCard(c)] };
    case 'reaction':
      return { type: 'reaction', reaction: { message_id: c.message_id, emoji: c.reaction ?? '' } };
    case 'template':
      return { type: 'template', template: c.template };
    case 'buttons':
      return interactive('button', c, {
        buttons: (c.buttons as Array<{ id: string; title: string }>).map((b) => ({ type: 'reply', reply: { id: b.id, title: b.title } })),
      });
    case 'list':
      return interactive('list', c, { button: c.button_text, sections: c.sections });
    case 'cta_url':
      return interactive('cta_url', c, { name: 'cta_url', parameters: { display_text: c.display_text, url: c.url } });
    case 'address':
      return interactive('address_message', c, {
        name: 'address_message',
        parameters: { country: c.country, ...(c.values ? { values: c.values } : {}) },
      });
    case 'single_product':
      return interactive('product', c, { catalog_id: c.catalog_id, product_retailer_id: c.product_retailer_id });
    case 'multi_product':
      return interactive('product_list', c, {
        catalog_id: c.catalog_id,
        sections: (c.sections as Array<{ title: string; product_retailer_ids: string[] }>).map((s) => ({
          title: s.title,
          product_items: s.product_retailer_ids.map((id) => ({ product_retailer_id: id })),
        })),
      });
    case 'catalog':
      // Without a thumbnail `parameters` is left out (the provider refuses it empty) and the catalog's first product is shown.
      return interactive('catalog_message', c, {
        name: 'catalog_message',
        ...(str(c.thumbnail_product_retailer_id) ? { parameters: { thumbnail_product_retailer_id: c.thumbnail_product_retailer_id } } : {}),
      });
    case 'flow':
      return interactive('flow', c, {
        name: 'flow',
        parameters: {
          // The only version the provider takes for flow messages.
          flow_message_version: '3',
          ...present(c, [
            ['flow_id', 'flow_id'],
            ['flow_name', 'flow_name'],
            ['flow_cta', 'flow_cta'],
            ['mode', 'mode'],
            ['flow_token', 'flow_token'],
            ['flow_action', 'flow_action'],
            ['flow_action_payload', 'flow_action_payload'],
          ]),
        },
      });
    case 'media_carousel':
      return interactive('carousel', c, {
        cards: (c.cards as Json[]).map((card, index) => {
          const kind = String(card.media_type);
          const buttons = card.buttons as Json[];
          const first = buttons[0]!;
          return {
            card_index: index,
            // Only a URL-button card names its type; quick-reply cards carry none.
            ...(first.type === 'url' ? { type: 'cta_url' } : {}),
            header: { type: kind, [kind]: media(card, false) },
            ...(card.body ? { body: text(card.body) } : {}),
            action:
              first.type === 'url'
                ? { name: 'cta_url', parameters: { display_text: first.title, url: first.url } }
                : { buttons: buttons.map((b) => ({ type: 'quick_reply', quick_reply: { id: b.id, title: b.title } })) },
          };
        }),
      });
    case 'product_carousel':
      return interactive('carousel', c, {
        cards: (c.products as Json[]).map((p, index) => ({
          card_index: index,
          type: 'product',
          action: { product_retailer_id: p.product_retailer_id, catalog_id: c.catalog_id },
        })),
      });
    default:
      throw new Error(`message type ${message.type} has no native form on the official API`);
  }
}

/** The customer's message a typing indicator answers: the one named, else the conversation's latest. */
const answeredBy = (message: OutboundMessage) => str(message.content.message_id) ?? message.answering;

/** The full native send request: the common envelope, the typed object, and the quote. */
export function toNativeRequest(message: OutboundMessage): Json {
  if (message.type === 'mark_as_read') {
    return { messaging_product: 'whatsapp', status: 'read', message_id: message.content.message_id };
  }
  // Typing (the only presence the provider has) is the read body with its indicator.
  if (message.type === 'presence') {
    return { messaging_product: 'whatsapp', status: 'read', message_id: answeredBy(message), typing_indicator: { type: 'text' } };
  }
  const replyTo = (message.content.reply_to as { id?: string } | undefined)?.id;
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.to,
    ...toNativeBody(message),
    ...(replyTo ? { context: { message_id: replyTo } } : {}),
    // Echoed in status webhooks: lets a send whose answer was lost be matched to its message.
    biz_opaque_callback_data: message.id,
  };
}

function settingsOf(connection: ChannelConnection): OfficialSettings {
  return connection.settings as unknown as OfficialSettings;
}

/** The longest one media upload may take (the provider takes documents of up to 100 MB). */
const UPLOAD_TIMEOUT_MS = 10 * 60_000;

/** What the template sync asks for: the provider leaves rejected_reason out unless it is named. */
const TEMPLATE_FIELDS = 'id,name,language,status,category,components,rejected_reason';

export function createOfficialAdapter(options: AdapterOptions): AdapterCalls {
  const client = (connection: ChannelConnection): GraphClient => {
    const s = settingsOf(connection);
    return createGraphClient({ apiBase: s.api_base, version: s.api_version, policy: options.targets, timeoutMs: options.timeoutMs });
  };
  const token = (connection: ChannelConnection) => connection.credentials.access_token;

  async function fetchMedia(connection: ChannelConnection, mediaId: string): Promise<Result<{ url: string; mimeType: string }>> {
    const result = await client(connection).call<{ url?: string; mime_type?: string }>('GET', encodeURIComponent(mediaId), {
      token: token(connection),
    });
    if (!result.ok) return result;
    if (!result.value.url)
      return { ok: false, error: { code: 'bad_response', title: 'provider answered without a media URL', retryable: false } };
    return { ok: true, value: { url: result.value.url, mimeType: result.value.mime_type ?? 'application/octet-stream' } };
  }

  return {
    async send(connection, message) {
      const s = settingsOf(connection);
      if (message.type === 'presence' && !answeredBy(message))
        return {
          ok: false,
          error: {
            code: 'nothing_to_answer',
            title: 'typing shows only in answer to a message from the customer, and the conversation has none',
            retryable: false,
          },
        };
      const result = await client(connection).call<{ messages?: Array<{ id: string }>; success?: boolean }>(
        'POST',
        `${s.phone_number_id}/messages`,
        {
          token: token(connection),
          body: toNativeRequest(message),
        },
      );
      if (!result.ok) return result;
      // The provider answers a read receipt (with typing or not) with {success: true}: it is no
      // message of its own, and the id it names belongs to the customer's message.
      if (message.type === 'mark_as_read' || message.type === 'presence') {
        if (result.value.success !== true)
          return { ok: false, error: { code: 'bad_response', title: 'provider did not confirm the read receipt', retryable: true } };
        return { ok: true, value: {} };
      }
      const id = result.value.messages?.[0]?.id;
      if (!id) return { ok: false, error: { code: 'bad_response', title: 'provider answered without a message id', retryable: true } };
      return { ok: true, value: { providerMessageId: id } };
    },

    fetchMedia,

    /** POST /{phone_number_id}/media, multipart: messaging_product, the MIME type, the file. */
    async uploadMedia(connection, file) {
      const s = settingsOf(connection);
      const form = new FormData();
      form.set('messaging_product', 'whatsapp');
      form.set('type', file.mimeType);
      form.set('file', new Blob([file.bytes], { type: file.mimeType }), file.fileName ?? 'file');
      const result = await client(connection).call<{ id?: string }>('POST', `${s.phone_number_id}/media`, {
        token: token(connection),
        form,
        // A 100 MB document takes longer than a message.
        timeoutMs: UPLOAD_TIMEOUT_MS,
      });
      if (!result.ok) return result;
      if (typeof result.value.id !== 'string' || result.value.id === '')
        return { ok: false, error: { code: 'bad_response', title: 'provider answered the upload without a media id', retryable: false } };
      return { ok: true, value: { mediaId: result.value.id } };
    },

    /** The media's URL from GET /{media_id}, then that URL with the token (it expires in minutes: asked again on every attempt). */
    async downloadMedia(connection, source) {
      const mediaId = typeof source.media_id === 'string' ? source.media_id : undefined;
      if (!mediaId)
        return { ok: false, error: { code: 'bad_media_source', title: 'the inbound media names no media id', retryable: false } };
      const found = await fetchMedia(connection, mediaId);
      if (!found.ok) return found;
      let origin: string;
      try {
        origin = new URL(found.value.url).origin;
      } catch {
        return {
          ok: false,
          error: { code: 'bad_response', title: 'provider answered with a media URL that does not parse', retryable: false },
        };
      }
      const bearer = { authorization: `Bearer ${token(connection)}` };
      // The token goes to the URL the provider gave, never to another origin a redirect names.
      const download = await downloadStream({
        url: found.value.url,
        headersFor: (url) => (url.origin === origin ? bearer : {}),
        timeoutMs: options.timeoutMs ?? 15_000,
        policy: options.targets,
      });
      if (!download.ok) return download;
      return { ok: true, value: { ...download.value, mimeType: download.value.mimeType ?? found.value.mimeType } };
    },

    async checkHealth(connection): Promise<HealthCheck> {
      const s = settingsOf(connection);
      const result = await client(connection).call<{ id?: string; quality_rating?: string; messaging_limit_tier?: string }>(
        'GET',
        s.phone_number_id,
        {
          token: token(connection),
          query: { fields: 'id,display_phone_number,verified_name,quality_rating,messaging_limit_tier' },
        },
      );
      if (!result.ok) return result;
      const tier = result.value.messaging_limit_tier;
      return { ok: true, status: result.value.quality_rating ?? 'ok', ...(typeof tier === 'string' ? { messagingTier: tier } : {}) };
    },

    async listTemplates(connection) {
      const s = settingsOf(connection);
      if (!s.waba_id)
        return {
          ok: false,
          error: { code: 'missing_waba_id', title: 'the channel has no business account id (waba_id)', retryable: false },
        };
      const all: ProviderTemplate[] = [];
      let after: string | undefined;
      for (let page = 0; page < 50; page++) {
        const result = await client(connection).call<{
          data?: Array<{
            id: string;
            name: string;
            language: string;
            category?: string;
            status: string;
            components?: unknown[];
            rejected_reason?: string;
          }>;
          paging?: { cursors?: { after?: string }; next?: string };
        }>('GET', `${s.waba_id}/message_templates`, {
          token: token(connection),
          query: { fields: TEMPLATE_FIELDS, limit: '100', ...(after ? { after } : {}) },
        });
        if (!result.ok) return result;
        for (const t of result.value.data ?? []) {
          all.push({
            providerTemplateId: t.id,
            name: t.name,
            language: t.language,
            category: (t.category ?? 'UTILITY').toUpperCase(),
            components: t.components ?? [],
            status: templateStatusName(t.status),
            reason: t.rejected_reason && t.rejected_reason !== 'NONE' ? t.rejected_reason : undefined,
          });
        }
        after = result.value.paging?.next ? result.value.paging.cursors?.after : undefined;
        if (!after) break;
      }
      return { ok: true, value: all };
    },

    async submitTemplate(connection, template) {
      const s = settingsOf(connection);
      if (!s.waba_id)
        return {
          ok: false,
          error: { code: 'missing_waba_id', title: 'the channel has no business account id (waba_id)', retryable: false },
        };
      const result = await client(connection).call<{ id: string; status?: string }>('POST', `${s.waba_id}/message_templates`, {
        token: token(connection),
        body: { name: template.name, language: template.language, category: template.category, components: template.components },
      });
      if (!result.ok) return result;
      return { ok: true, value: { providerTemplateId: result.value.id, status: templateStatusName(result.value.status ?? 'PENDING') } };
    },

    async registerPhone(connection, pin) {
      const s = settingsOf(connection);
      const result = await client(connection).call<{ success?: boolean }>('POST', `${s.phone_number_id}/register`, {
        token: token(connection),
        body: { messaging_product: 'whatsapp', pin },
      });
      if (!result.ok) return result;
      if (result.value.success !== true)
        return { ok: false, error: { code: 'bad_response', title: 'provider did not confirm the registration', retryable: false } };
      return { ok: true, value: { registered: true } };
    },

    async exchangeCode(input): Promise<Result<SignupExchange>> {
      const graph = createGraphClient({ apiBase: input.apiBase, version: input.version, policy: options.targets });
      const exchanged = await graph.call<{ access_token?: string }>('GET', 'oauth/access_token', {
        query: { client_id: input.appId, client_secret: input.appSecret, code: input.code },
      });
      if (!exchanged.ok) return exchanged;
      const accessToken = exchanged.value.access_token;
      if (!accessToken)
        return { ok: false, error: { code: 'bad_response', title: 'provider answered without an access token', retryable: false } };
      let wabaId = input.wabaId;
      if (!wabaId) {
        const debug = await graph.call<{ data?: { granular_scopes?: Array<{ scope: string; target_ids?: string[] }> } }>(
          'GET',
          'debug_token',
          {
            token: accessToken,
            query: { input_token: accessToken },
          },
        );
        if (!debug.ok) return debug;
        wabaId = debug.value.data?.granular_scopes?.find((g) => g.scope === 'whatsapp_business_management')?.target_ids?.[0];
        if (!wabaId)
          return { ok: false, error: { code: 'no_business_account', title: 'the signup granted no business account', retryable: false } };
      }
      const subscribed = await graph.call<{ success?: boolean }>('POST', `${wabaId}/subscribed_apps`, { token: accessToken, body: {} });
      if (!subscribed.ok) return subscribed;
      const numbers = await graph.call<{ data?: Array<{ id: string; display_phone_number: string; verified_name?: string }> }>(
        'GET',
        `${wabaId}/phone_numbers`,
        {
          token: accessToken,
        },
      );
      if (!numbers.ok) return numbers;
      return {
        ok: true,
        value: {
          accessToken,
          wabaId,
          phoneNumbers: (numbers.value.data ?? []).map((n) => ({
            phoneNumberId: n.id,
            displayPhoneNumber: n.display_phone_number,
            verifiedName: n.verified_name,
          })),
        },
      };
    },
  };
}
