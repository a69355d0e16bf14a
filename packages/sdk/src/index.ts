// @parley/sdk: Parley's TypeScript client (docs/sdk.md).
export { Parley, SDK_VERSION, type ParleyGroups, type ParleyOptions } from './client.ts';
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  ParleyError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  type ErrorBody,
  type FieldError,
  type Problem,
} from './errors.ts';
export { EventStream, type EventStreamOptions, type EventType, type ParleyEvent } from './events-stream.ts';
export type { OAuthOptions, OAuthTokens } from './oauth.ts';
export { PagePromise, type Page } from './pagination.ts';
export type { ArgsOf, ItemOf, OperationId, RequestOptions, ResultOf } from './types.ts';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookHeaders } from './webhooks.ts';
export { OPERATIONS, GROUPS } from './generated/operations.ts';
export type { components, operations, paths } from './generated/openapi.ts';
