/** The Developers area's API calls: webhook endpoints and deliveries, the event log, OAuth clients. */
import type { EventPageRecord, EventRecord } from '../../../http/v1/events.presenters.ts';
import type { CreatedOAuthClientRecord, OAuthClientRecord, OAuthClientSecretRecord } from '../../../http/v1/oauth-clients.presenters.ts';
import type { CreateOAuthClientRequest } from '../../../http/v1/oauth-clients.ts';
import type {
  CreatedWebhookEndpointRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookRetryResultRecord,
  WebhookSecretRecord,
  WebhookSecretRotationRecord,
  WebhookSettingsRecord,
  WebhookTestResultRecord,
} from '../../../http/v1/webhooks.presenters.ts';
import type { CreateWebhookEndpointRequest, UpdateWebhookEndpointRequest } from '../../../http/v1/webhooks.ts';
import { call, type Page } from '../../api.ts';

export type { EventRecord, OAuthClientRecord, WebhookDeliveryRecord, WebhookEndpointRecord, WebhookSettingsRecord };

const WEBHOOKS = '/v1/settings/developer/webhooks';

export type DeliveryFilters = { endpoint_id?: string; status?: string; event_type?: string; message_id?: string };

const id = encodeURIComponent;

export const webhooks = {
  settings: () => call<{ data: WebhookSettingsRecord }>('GET', WEBHOOKS).then((r) => r.data),
  create: (input: CreateWebhookEndpointRequest) =>
    call<{ data: CreatedWebhookEndpointRecord }>('POST', `${WEBHOOKS}/endpoints`, { body: input }).then((r) => r.data),
  update: (endpointId: string, input: UpdateWebhookEndpointRequest) =>
    call<{ data: WebhookEndpointRecord }>('PATCH', `${WEBHOOKS}/endpoints/${id(endpointId)}`, { body: input }).then((r) => r.data),
  remove: (endpointId: string) => call<void>('DELETE', `${WEBHOOKS}/endpoints/${id(endpointId)}`),
  secret: (endpointId: string) =>
    call<{ data: WebhookSecretRecord }>('GET', `${WEBHOOKS}/endpoints/${id(endpointId)}/secret`).then((r) => r.data),
  rotate: (endpointId: string) =>
    call<{ data: WebhookSecretRotationRecord }>('POST', `${WEBHOOKS}/endpoints/${id(endpointId)}/rotate-secret`).then((r) => r.data),
  test: (endpointId: string, eventType: string | undefined) =>
    call<{ data: WebhookTestResultRecord }>('POST', `${WEBHOOKS}/endpoints/${id(endpointId)}/test`, {
      body: eventType ? { event_type: eventType } : {},
    }).then((r) => r.data),
  deliveries: (filters: DeliveryFilters, cursor: string | undefined) =>
    call<Page<WebhookDeliveryRecord>>('GET', `${WEBHOOKS}/deliveries`, { query: { ...filters, cursor, limit: '25' } }),
  retry: (messageId: string, endpointId: string) =>
    call<{ data: WebhookRetryResultRecord }>('POST', `${WEBHOOKS}/deliveries/${id(messageId)}/retry`, {
      body: { endpoint_id: endpointId },
    }).then((r) => r.data),
};

export const events = {
  /** Newest first; "Load more" reads on into older events while there are more. */
  page: (type: string | undefined, cursor: string | undefined): Promise<Page<EventRecord>> =>
    call<EventPageRecord>('GET', '/v1/events', { query: { type, cursor, limit: '50', order: 'desc' } }).then((r) => ({
      data: r.data,
      meta: { next_cursor: r.meta.has_more ? r.meta.next_cursor : null },
    })),
};

export const oauthClients = {
  list: (cursor: string | undefined) => call<Page<OAuthClientRecord>>('GET', '/v1/oauth/clients', { query: { cursor } }),
  create: (input: CreateOAuthClientRequest) =>
    call<{ data: CreatedOAuthClientRecord }>('POST', '/v1/oauth/clients', { body: input }).then((r) => r.data),
  rotateSecret: (clientId: string) =>
    call<{ data: OAuthClientSecretRecord }>('POST', `/v1/oauth/clients/${id(clientId)}/secret`).then((r) => r.data),
  remove: (clientId: string) => call<void>('DELETE', `/v1/oauth/clients/${id(clientId)}`),
};
