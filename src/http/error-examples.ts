/**
 * The refusals the OpenAPI document shows: per error status, the answers it stands for on each
 * operation (a missing credential, a permission, a field, the operation's own conflicts and
 * not-founds), in the route group's body shape. openapi.ts attaches them to every operation's error
 * responses; the records they name are examples.ts's (the same ids).
 */
import { DomainError } from '../domain/errors.ts';
import { HttpError, type ApiError } from './errors.ts';
import { MAX_ENDPOINTS_PER_ORGANIZATION } from '../domain/webhooks/deps.ts';
import { SIGNUP_CLOSED } from '../domain/users/signup.ts';
import { unreachedOrganization } from './auth/authenticate.ts';
import { windowClosedDetail } from './v1/messages.presenters.ts';
import { ORG_ID, OTHER_ORG_ID, CHANNEL_ID, PHONE, EXAMPLE_REQUEST_ID } from './examples.ts';

/** What an operation's error examples need to know of it. */
export type ErrorContext = {
  /** `METHOD /path` as in the document. */
  operation: string;
  public: boolean;
  sessionOnly: boolean;
  permission?: string;
  /** The first required member of the request body (else its first member, sent with the wrong type), and its JSON type. */
  bodyField?: { name: string; type: string; required: boolean };
  /** A query parameter with a lower bound (limit). */
  pagedQuery: boolean;
  /** The route takes Idempotency-Key through http/idempotency.ts: its answers are kept, or only that it succeeded. */
  idempotency?: 'replay' | 'no-replay';
  /** The route answers 409 of its own (not only for an Idempotency-Key). */
  conflicts?: boolean;
};

export type ErrorExample = { summary: string; error: ApiError; retryAfter?: number };

/** What a path parameter names, as the not-found answers say it. */
const RESOURCES: Record<string, string> = {
  keyID: 'API key',
  channelID: 'channel',
  contactID: 'contact',
  conversationID: 'conversation',
  messageID: 'message',
  noteID: 'note',
  sessionID: 'session',
  templateID: 'template',
  endpointID: 'webhook endpoint',
  requestID: 'authorization request',
  clientID: 'OAuth client',
  grantID: 'authorization',
  organizationID: 'organization',
  userID: 'member',
  invitationID: 'invitation',
  tag: 'tag assignment',
  phone: 'contact',
  groupID: 'group',
  companyID: 'company',
  pipelineID: 'pipeline',
  stageID: 'stage',
  dealID: 'deal',
  taskID: 'task',
  labelID: 'relationship label',
  chatLabelID: 'label',
  relationshipID: 'relationship',
  commentID: 'comment',
};

/** Not-found answers whose resource is not the one the last path parameter names. */
const NOT_FOUND: Record<string, string> = {
  'PUT /v1/contacts/{contactID}/consent/{channel}': 'contact',
  'DELETE /v1/contacts/{contactID}/suppressions/{channel}': 'suppression',
  'POST /v1/settings/developer/webhooks/deliveries/{messageID}/retry': 'webhook message',
  'POST /v1/settings/developer/webhooks/endpoints': 'channel',
  'POST /v1/oauth/device/lookup': 'device authorization',
  'POST /v1/oauth/device/approve': 'device authorization',
  'POST /v1/oauth/device/deny': 'device authorization',
  'POST /v1/invitations/lookup': 'invitation',
  'POST /v1/invitations/accept': 'invitation',
  'DELETE /v1/channels/{channelID}/labels/{chatLabelID}/chats/{chat}': 'label',
};

/** Conflicts and refusals the route groups answer, by operation. */
const CONFLICTS: Array<[operation: string, example: ErrorExample]> = [
  [
    'POST /v1/messages',
    {
      summary: 'Channel not connected',
      error: new DomainError('conflict', `channel ${CHANNEL_ID} is disconnected; it must be connected to send`, {
        extra: { channel_status: 'disconnected' },
      }),
    },
  ],
  [
    'POST /v1/channels/{channelID}/connect',
    {
      summary: 'Already connected',
      error: new DomainError('conflict', 'channel is already connected; disconnect it first to pair another phone'),
    },
  ],
  [
    'GET /v1/channels/{channelID}/qr',
    {
      summary: 'Not pairing',
      error: new DomainError('conflict', `channel is disconnected: POST /v1/channels/${CHANNEL_ID}/connect first`),
    },
  ],
  [
    'POST /v1/contacts',
    {
      summary: 'Identifier taken',
      error: new DomainError('conflict', 'another contact already has this phone_number', {
        fieldErrors: [{ pointer: '/phone_number', location: 'body', message: 'already used by another contact' }],
      }),
    },
  ],
  [
    'PATCH /v1/contacts/{contactID}',
    {
      summary: 'Identifier taken',
      error: new DomainError('conflict', 'another contact already has this email', {
        fieldErrors: [{ pointer: '/email', location: 'body', message: 'already used by another contact' }],
      }),
    },
  ],
  ...[
    'GET /v1/channels/{channelID}/groups',
    'POST /v1/channels/{channelID}/groups',
    'POST /v1/channels/{channelID}/groups/join',
    'GET /v1/channels/{channelID}/groups/{groupID}',
    'PATCH /v1/channels/{channelID}/groups/{groupID}',
    'PUT /v1/channels/{channelID}/groups/{groupID}/picture',
    'DELETE /v1/channels/{channelID}/groups/{groupID}/picture',
    'POST /v1/channels/{channelID}/groups/{groupID}/participants',
    'GET /v1/channels/{channelID}/groups/{groupID}/invite',
    'POST /v1/channels/{channelID}/groups/{groupID}/invite/revoke',
    'POST /v1/channels/{channelID}/groups/{groupID}/leave',
    'POST /v1/channels/{channelID}/presence/subscribe',
  ].map((operation): [string, ErrorExample] => [
    operation,
    {
      summary: 'Channel not connected',
      error: new DomainError('conflict', 'channel is disconnected (logged out on the phone): groups need its phone paired and connected'),
    },
  ]),
  ...[
    'POST /v1/channels/{channelID}/labels',
    'PATCH /v1/channels/{channelID}/labels/{chatLabelID}',
    'DELETE /v1/channels/{channelID}/labels/{chatLabelID}',
    'POST /v1/channels/{channelID}/labels/{chatLabelID}/chats',
    'DELETE /v1/channels/{channelID}/labels/{chatLabelID}/chats/{chat}',
    'POST /v1/channels/{channelID}/status',
  ].map((operation): [string, ErrorExample] => [
    operation,
    {
      summary: 'Channel not connected',
      error: new DomainError('conflict', 'channel is disconnected (logged out on the phone): labels need its phone paired and connected'),
    },
  ]),
  ['POST /v1/contacts/lookup', { summary: 'Ambiguous', error: new DomainError('conflict', 'the identifiers match 2 different contacts') }],
  [
    'POST /v1/templates',
    { summary: 'Template exists', error: new DomainError('conflict', 'template order_shipped (en_US) exists on this channel') },
  ],
  [
    'POST /v1/templates/{templateID}/submit',
    {
      summary: 'Not a draft',
      error: new DomainError('conflict', 'template is approved; only draft or rejected templates can be submitted'),
    },
  ],
  [
    'POST /v1/settings/developer/webhooks/endpoints',
    {
      summary: 'Too many endpoints',
      error: new DomainError(
        'conflict',
        `an organization has at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints; delete one first`,
      ),
    },
  ],
  [
    'GET /v1/oauth/authorization-requests/{requestID}',
    { summary: 'Already decided', error: new DomainError('conflict', 'this authorization request was already approved') },
  ],
  [
    'POST /v1/oauth/authorization-requests/{requestID}/approve',
    { summary: 'Already decided', error: new DomainError('conflict', 'this authorization request was already approved') },
  ],
  [
    'POST /v1/oauth/authorization-requests/{requestID}/deny',
    { summary: 'Already decided', error: new DomainError('conflict', 'this authorization request was already approved') },
  ],
  [
    'POST /v1/oauth/device/lookup',
    { summary: 'Already decided', error: new DomainError('conflict', 'this device authorization was already denied') },
  ],
  [
    'POST /v1/oauth/device/approve',
    { summary: 'Already decided', error: new DomainError('conflict', 'this device authorization was already approved') },
  ],
  [
    'POST /v1/oauth/device/deny',
    { summary: 'Already decided', error: new DomainError('conflict', 'this device authorization was already approved') },
  ],
  [
    'POST /v1/oauth/clients/{clientID}/secret',
    { summary: 'Public client', error: new DomainError('conflict', 'a public client has no secret: it proves itself with PKCE') },
  ],
  [
    'POST /v1/organizations/{organizationID}/leave',
    {
      summary: 'Last owner',
      error: new DomainError('conflict', 'you are the last owner: organization would have no owner: make another member an owner first'),
    },
  ],
  [
    'PATCH /v1/organizations/{organizationID}/members/{userID}',
    {
      summary: 'Last owner',
      error: new DomainError('conflict', 'the organization would have no owner: make another member an owner first'),
    },
  ],
  [
    'DELETE /v1/organizations/{organizationID}/members/{userID}',
    {
      summary: 'Last owner',
      error: new DomainError('conflict', 'the organization would have no owner: make another member an owner first'),
    },
  ],
  [
    'POST /v1/organizations/{organizationID}/invitations',
    {
      summary: 'Already a member',
      error: new DomainError('conflict', 'ana@example.com is already a member of this organization', {
        fieldErrors: [{ pointer: '/email', location: 'body', message: 'already a member of this organization' }],
      }),
    },
  ],
  [
    'POST /v1/invitations/accept',
    {
      summary: 'Sign in first',
      error: new DomainError('conflict', 'an account with the email ana@example.com exists: sign in, then open the link again to accept'),
    },
  ],
  [
    '',
    {
      summary: 'Conflict',
      error: new DomainError('conflict', 'the channel changed while the request was served; read it again and retry'),
    },
  ],
];

const NOT_A_MEMBER: ErrorExample = {
  summary: 'Not a member',
  error: new DomainError('forbidden', `not a member of organization ${ORG_ID}: choose organizations you belong to`, {
    fieldErrors: [{ pointer: '/organization_ids/0', location: 'body', message: 'not an organization you are a member of' }],
  }),
};
const NOT_A_SESSION: ErrorExample = {
  summary: 'Not a session',
  error: new DomainError('forbidden', 'this operation needs a dashboard session'),
};
const REQUEST_EXPIRED: ErrorExample = {
  summary: 'Expired',
  error: new DomainError('gone', 'this authorization request expired: go back to the application and start again'),
};
const DEVICE_EXPIRED: ErrorExample = {
  summary: 'Expired',
  error: new DomainError('gone', 'this device authorization expired: start again on the device for a new code'),
};
const WRONG_CODES: ErrorExample = {
  summary: 'Too many wrong codes',
  error: new HttpError('rate_limited', 'too many wrong codes from your account; try again in 8 s (at 2025-06-02T09:15:08.000Z)'),
  retryAfter: 8,
};
const BAD_USER_CODE: ErrorExample = {
  summary: 'Malformed user_code',
  error: new DomainError('invalid', 'user_code must be the 8 letters the device shows, such as BCDF-GHJK', {
    fieldErrors: [
      { pointer: '/user_code', location: 'body', message: 'must be 8 letters of BCDFGHJKLMNPQRSTVWXZ (a dash or spaces between are fine)' },
    ],
  }),
};

const WRONG_PASSWORD: ErrorExample = {
  summary: 'Wrong current password',
  error: new DomainError('forbidden', 'current_password is not your password', {
    fieldErrors: [{ pointer: '/current_password', location: 'body', message: 'is not your current password' }],
  }),
};
const PASSWORD_CHECKS_HELD: ErrorExample = {
  summary: 'Too many failed password checks',
  error: new HttpError('rate_limited', 'too many failed password checks for this account; try again in 8 s (at 2025-06-02T09:15:08.000Z)'),
  retryAfter: 8,
};
const EMAIL_TAKEN: ErrorExample = {
  summary: 'Email taken',
  error: new DomainError('conflict', 'another account already uses this email', {
    fieldErrors: [{ pointer: '/email', location: 'body', message: 'already used by another account' }],
  }),
};
const passwordTooShort = (pointer: string): ErrorExample => ({
  summary: 'Password too short',
  error: invalidField('body', pointer, 'Too small: expected string to have >=8 characters'),
});

/** Operations whose refusals of a status are their own (they replace the ones the status stands for elsewhere). */
const INVITATION_USED: ErrorExample = {
  summary: 'Used or expired',
  error: new DomainError('gone', 'this invitation was already accepted: sign in instead'),
};
const UNKNOWN_LINKS: ErrorExample = {
  summary: 'Too many unknown links',
  error: new HttpError(
    'rate_limited',
    'too many unknown invitation links from this address; try again in 8 s (at 2025-06-02T09:15:08.000Z)',
  ),
  retryAfter: 8,
};
const NOT_AN_OWNER: ErrorExample = {
  summary: 'Not an owner',
  error: new DomainError('forbidden', 'only an owner makes or unmakes owners'),
};

const GROUP_ID = '120363025246125888@g.us';
const GROUP_NOT_FOUND: ErrorExample = {
  summary: 'Group not found',
  error: new DomainError('not_found', `group ${GROUP_ID} not found: the channel's number is not in it`),
};
const CHANNEL_NOT_FOUND: ErrorExample = { summary: 'Channel not found', error: new DomainError('not_found', 'channel not found') };
const NOT_ADMIN: ErrorExample = {
  summary: 'Not an admin',
  error: new DomainError('forbidden', `the channel's number is not an admin of group ${GROUP_ID}: only admins may change who may send`),
};
const MISSING_SEND: ErrorExample = {
  summary: 'Missing messages:send',
  error: new DomainError('forbidden', 'missing permission messages:send', { extra: { permission: 'messages:send' } }),
};
const NOT_ON_NETWORK: ErrorExample = {
  summary: 'Participant not on the network',
  error: new DomainError('invalid', 'not on the chat network: +4915112340002', {
    fieldErrors: [{ pointer: '/participants/1', location: 'body', message: 'not on the chat network' }],
  }),
};

const DOMAIN_TAKEN: ErrorExample = {
  summary: 'Domain taken',
  error: new DomainError('conflict', 'another company already has this domain', {
    fieldErrors: [{ pointer: '/domain', location: 'body', message: 'already used by another company' }],
  }),
};
const STAGE_NAME_TAKEN: ErrorExample = {
  summary: 'Name taken',
  error: new DomainError('conflict', 'another stage of this pipeline has this name', {
    fieldErrors: [{ pointer: '/name', location: 'body', message: 'another stage of this pipeline has this name' }],
  }),
};
const LAST_OPEN_STAGE = 'this is the pipeline’s last open stage: a pipeline keeps at least one';
const moveDealsNeeded = (what: string): ErrorExample => ({
  summary: 'Deals to move',
  error: new DomainError('invalid', `move_deals_to: the ${what} holds 3 deals: name a stage to move them to`, {
    fieldErrors: [{ pointer: '/move_deals_to', location: 'query', message: `the ${what} holds 3 deals: name a stage to move them to` }],
  }),
});

const LABEL_NAME_TAKEN: ErrorExample = {
  summary: 'Name taken',
  error: new DomainError('conflict', 'another label between these kinds has this name', {
    fieldErrors: [{ pointer: '/name', location: 'body', message: 'another label from the same kind to the same kind has this name' }],
  }),
};
const unknownRecord = (pointer: string, kind: string): ErrorExample => ({
  summary: `Unknown ${kind}`,
  error: new DomainError('invalid', `${pointer.slice(1).replaceAll('/', '.')}: not a ${kind} of this organization`, {
    fieldErrors: [{ pointer, location: 'body', message: `not a ${kind} of this organization` }],
  }),
});

const OPERATION_ERRORS: Record<string, Record<number, ErrorExample[]>> = {
  'GET /v1/channels/{channelID}/groups/{groupID}': { 404: [GROUP_NOT_FOUND, CHANNEL_NOT_FOUND] },
  'PATCH /v1/channels/{channelID}/groups/{groupID}': { 403: [NOT_ADMIN, MISSING_SEND], 404: [GROUP_NOT_FOUND, CHANNEL_NOT_FOUND] },
  'POST /v1/channels/{channelID}/groups/{groupID}/participants': {
    400: [
      NOT_ON_NETWORK,
      {
        summary: 'Not in the group',
        error: new DomainError('invalid', `not in group ${GROUP_ID}: +4915112345679`, {
          fieldErrors: [{ pointer: '/participants/0', location: 'body', message: 'not in the group' }],
        }),
      },
    ],
    403: [
      {
        ...NOT_ADMIN,
        error: new DomainError(
          'forbidden',
          `the channel's number is not an admin of group ${GROUP_ID}: only admins may remove participants`,
        ),
      },
      MISSING_SEND,
    ],
    404: [GROUP_NOT_FOUND, CHANNEL_NOT_FOUND],
  },
  'POST /v1/channels/{channelID}/groups': { 400: [NOT_ON_NETWORK] },
  'POST /v1/channels/{channelID}/groups/join': {
    400: [
      {
        summary: 'Unknown invite code',
        error: new DomainError('invalid', 'no group has this invite code (mistyped, or reset by an admin)', {
          fieldErrors: [{ pointer: '/code', location: 'body', message: 'no group has this invite code' }],
        }),
      },
    ],
  },
  'POST /v1/tasks': { 400: [unknownRecord('/targets/0/id', 'deal')] },
  'POST /v1/relationship-labels': { 409: [LABEL_NAME_TAKEN] },
  'PATCH /v1/relationship-labels/{labelID}': { 409: [LABEL_NAME_TAKEN] },
  'POST /v1/relationships': { 400: [unknownRecord('/to_id', 'company')] },
  'POST /v1/comments': { 400: [unknownRecord('/record/id', 'contact')] },
  'PATCH /v1/comments/{commentID}': {
    403: [
      { summary: 'Not the author', error: new DomainError('forbidden', 'only the author of a comment edits it') },
      {
        summary: 'Missing crm:write',
        error: new DomainError('forbidden', 'missing permission crm:write', { extra: { permission: 'crm:write' } }),
      },
    ],
  },
  'POST /v1/companies': { 409: [DOMAIN_TAKEN] },
  'PATCH /v1/companies/{companyID}': { 409: [DOMAIN_TAKEN] },
  'DELETE /v1/pipelines/{pipelineID}': {
    400: [moveDealsNeeded('pipeline')],
    409: [
      {
        summary: 'Default pipeline',
        error: new DomainError('conflict', 'the default pipeline cannot be deleted: make another pipeline the default first'),
      },
    ],
  },
  'POST /v1/pipelines/{pipelineID}/stages': {
    409: [STAGE_NAME_TAKEN, { summary: 'Too many stages', error: new DomainError('conflict', 'a pipeline has at most 100 stages') }],
  },
  'PATCH /v1/pipelines/{pipelineID}/stages/{stageID}': {
    409: [
      STAGE_NAME_TAKEN,
      {
        summary: 'Last open stage',
        error: new DomainError('conflict', LAST_OPEN_STAGE, {
          fieldErrors: [{ pointer: '/kind', location: 'body', message: LAST_OPEN_STAGE }],
        }),
      },
    ],
  },
  'DELETE /v1/pipelines/{pipelineID}/stages/{stageID}': {
    400: [moveDealsNeeded('stage')],
    409: [{ summary: 'Last open stage', error: new DomainError('conflict', LAST_OPEN_STAGE) }],
  },
  'POST /v1/deals': {
    400: [
      {
        summary: 'Stage of another pipeline',
        error: new DomainError('invalid', 'stage_id: not a stage of pipeline_id', {
          fieldErrors: [{ pointer: '/stage_id', location: 'body', message: 'not a stage of pipeline_id' }],
        }),
      },
      {
        summary: 'Unknown contact',
        error: new DomainError('invalid', 'contact_ids.0: not a contact of this organization', {
          fieldErrors: [{ pointer: '/contact_ids/0', location: 'body', message: 'not a contact of this organization' }],
        }),
      },
    ],
  },
  'GET /v1/messages/{messageID}/media': {
    404: [
      { summary: 'Message not found', error: new DomainError('not_found', 'message not found') },
      { summary: 'No media', error: new DomainError('not_found', 'the message has no media') },
    ],
    409: [
      {
        summary: 'Still downloading',
        error: new DomainError('conflict', "the message's media is still being downloaded; try again shortly", {
          extra: { media_status: 'pending' },
        }),
      },
      {
        summary: 'Too large',
        error: new DomainError(
          'conflict',
          "the message's media could not be stored: image media is 6291456 bytes; the limit is 5242880 bytes",
          {
            extra: {
              media_status: 'failed',
              media_error: { code: 'media_too_large', title: 'image media is 6291456 bytes; the limit is 5242880 bytes' },
            },
          },
        ),
      },
    ],
    416: [
      {
        summary: 'Range outside the media',
        error: new HttpError('range_not_satisfiable', 'the range starts past the end of the media (48213 bytes)'),
      },
    ],
  },
  'GET /v1/events/stream': {
    429: [
      {
        summary: 'Too many open streams',
        error: new HttpError(
          'rate_limited',
          'too many open event streams for this credential: the limit is 20 (EVENT_STREAM_MAX_PER_CREDENTIAL); close one, or retry in 15 s',
        ),
        retryAfter: 15,
      },
      {
        summary: 'Rate limited',
        error: new HttpError('rate_limited', 'too many requests with this API key: the limit is 6000 a minute; retry in 42 s'),
        retryAfter: 42,
      },
    ],
    400: [
      {
        summary: 'Not a cursor',
        error: invalidField('headers', '/last-event-id', 'not an id of this stream or a cursor of GET /v1/events', 'cursor is not valid'),
      },
      {
        summary: 'Unknown event type',
        error: invalidField(
          'query',
          '/types',
          'unknown event type "message.nope"; one of message.new, message.sent, message.status_update, conversation.updated, contact.updated, template.status_update, …',
        ),
      },
      {
        summary: 'Invalid organization_id',
        error: invalidField('query', '/organization_id', 'must be a UUID', 'organization_id must be an organization id (UUID)'),
      },
    ],
  },
  'POST /v1/invitations/lookup': { 410: [INVITATION_USED], 429: [UNKNOWN_LINKS] },
  'POST /v1/invitations/accept': {
    403: [
      {
        summary: 'Another email',
        error: new DomainError('forbidden', 'this invitation is for ana@example.com: sign in as that user to accept it'),
      },
    ],
    410: [INVITATION_USED],
    429: [UNKNOWN_LINKS],
  },
  'PATCH /v1/organizations/{organizationID}/members/{userID}': {
    403: [
      NOT_AN_OWNER,
      {
        summary: 'Missing members:write',
        error: new DomainError('forbidden', 'missing permission members:write', { extra: { permission: 'members:write' } }),
      },
    ],
  },
  'PATCH /v1/auth/account': {
    400: [
      {
        summary: 'Current password missing',
        error: invalidField(
          'body',
          '/current_password',
          'required to change the email',
          'current_password is required to change the email',
        ),
      },
      { summary: 'Invalid email', error: invalidField('body', '/email', 'must be an email address', 'email must be an email address') },
    ],
    403: [WRONG_PASSWORD, NOT_A_SESSION],
    409: [EMAIL_TAKEN],
    429: [PASSWORD_CHECKS_HELD],
  },
  'POST /v1/auth/password': {
    400: [
      passwordTooShort('/new_password'),
      {
        summary: 'Password is the email',
        error: invalidField('body', '/new_password', 'must not be the email address', 'new_password must not be the email address'),
      },
    ],
    403: [WRONG_PASSWORD, NOT_A_SESSION],
    429: [PASSWORD_CHECKS_HELD],
  },
  'POST /v1/auth/signup': {
    400: [
      passwordTooShort('/password'),
      { summary: 'Invalid email', error: invalidField('body', '/email', 'must be an email address', 'email must be an email address') },
    ],
    403: [{ summary: 'Sign-up closed', error: new DomainError('forbidden', SIGNUP_CLOSED) }],
    409: [EMAIL_TAKEN],
    429: [
      {
        summary: 'Too many attempts',
        error: new HttpError('rate_limited', 'too many attempts for this address; try again in 8 s (at 2025-06-02T09:15:08.000Z)'),
        retryAfter: 8,
      },
    ],
  },
  'POST /v1/auth/password-reset': {
    400: [passwordTooShort('/new_password')],
    404: [{ summary: 'Unknown link', error: new DomainError('not_found', 'password reset link not found') }],
    410: [
      {
        summary: 'Used',
        error: new DomainError('gone', 'this password reset link was already used (or a newer password replaced it): ask for a new one'),
      },
      { summary: 'Expired', error: new DomainError('gone', 'this password reset link expired: ask for a new one') },
    ],
    429: [
      {
        summary: 'Too many tokens',
        error: new HttpError('rate_limited', 'too many reset tokens from this address; try again in 8 s (at 2025-06-02T09:15:08.000Z)'),
        retryAfter: 8,
      },
    ],
  },
  'POST /v1/organizations/{organizationID}/members/{userID}/password-reset': {
    403: [
      {
        summary: 'Missing members:write',
        error: new DomainError('forbidden', 'missing permission members:write', { extra: { permission: 'members:write' } }),
      },
      { summary: 'An owner', error: new DomainError('forbidden', "only an owner can reset an owner's password") },
      {
        summary: 'In another organization',
        error: new DomainError(
          'forbidden',
          'this person also belongs to another organization: they change their password themselves, or the operator runs npm run reset-password',
        ),
      },
    ],
    404: [{ summary: 'Member not found', error: new DomainError('not_found', 'member not found') }],
  },
  'POST /v1/oauth/device': {
    400: [
      { summary: 'Missing client_id', error: invalidField('body', '/client_id', 'Invalid input: expected string, received undefined') },
      {
        summary: 'Unknown scope',
        error: new DomainError('invalid', 'unknown scope messages:delete', { extra: { oauth_error: 'invalid_scope' } }),
      },
      {
        summary: 'Not a device client',
        error: new DomainError(
          'invalid',
          'the client is not registered for the device authorization grant (urn:ietf:params:oauth:grant-type:device_code)',
          { extra: { oauth_error: 'unauthorized_client' } },
        ),
      },
    ],
    401: [{ summary: 'Unknown client', error: new DomainError('unauthenticated', 'unknown client_id: no client is registered with it') }],
  },
  'POST /v1/oauth/clients': {
    400: [
      {
        summary: 'Bad redirect URI',
        error: new DomainError(
          'invalid',
          "the client's settings are not valid: redirect_uris/0 http is allowed only on a loopback address (127.0.0.1, [::1] or localhost); use https",
          {
            fieldErrors: [
              {
                pointer: '/redirect_uris/0',
                location: 'body',
                message: 'http is allowed only on a loopback address (127.0.0.1, [::1] or localhost); use https',
              },
            ],
          },
        ),
      },
      { summary: 'Invalid name', error: invalidField('body', '/name', 'Invalid input: expected string, received undefined') },
    ],
    403: [
      {
        summary: 'Missing oauth_clients:write',
        error: new DomainError('forbidden', 'missing permission oauth_clients:write', { extra: { permission: 'oauth_clients:write' } }),
      },
      {
        summary: 'Scope beyond the creator',
        error: new DomainError('forbidden', 'cannot give a client scope messages:send that the registering credential does not hold', {
          extra: { permissions: ['messages:send'] },
        }),
      },
    ],
  },
  'POST /v1/oauth/token': {
    400: [
      {
        summary: 'Not a form',
        error: new DomainError('invalid', 'the body must be application/x-www-form-urlencoded (RFC 6749 §3.2)', {
          extra: { oauth_error: 'invalid_request' },
        }),
      },
      {
        summary: 'Waiting for the user',
        error: new DomainError('invalid', 'the user has not decided yet: poll again after the interval', {
          extra: { oauth_error: 'authorization_pending' },
        }),
      },
      {
        summary: 'Polling too fast',
        error: new DomainError('invalid', 'polled sooner than the interval: wait at least 10 s between polls from now on', {
          extra: { oauth_error: 'slow_down' },
        }),
      },
      {
        summary: 'Device code expired',
        error: new DomainError('invalid', 'the device code expired: start the device flow again', {
          extra: { oauth_error: 'expired_token' },
        }),
      },
      {
        summary: 'Denied',
        error: new DomainError('invalid', 'the user denied the authorization', { extra: { oauth_error: 'access_denied' } }),
      },
      {
        summary: 'Code used twice',
        error: new DomainError('invalid', 'the code was already used: every token issued for it is revoked', {
          extra: { oauth_error: 'invalid_grant' },
        }),
      },
      {
        summary: 'Wrong verifier',
        error: new DomainError('invalid', 'code_verifier does not match the code_challenge', { extra: { oauth_error: 'invalid_grant' } }),
      },
      {
        summary: 'Refresh token reused',
        error: new DomainError(
          'invalid',
          'the refresh token was already used: the whole grant is revoked, so the user must authorize again',
          { extra: { oauth_error: 'invalid_grant' } },
        ),
      },
      {
        summary: 'Wider scope',
        error: new DomainError('invalid', 'scope channels:write was not granted: a refresh can only narrow the scopes', {
          extra: { oauth_error: 'invalid_scope' },
        }),
      },
      {
        summary: 'Grant not registered',
        error: new DomainError('invalid', 'the client is not registered for the refresh_token grant', {
          extra: { oauth_error: 'unauthorized_client' },
        }),
      },
      {
        summary: 'Unknown grant type',
        error: new DomainError(
          'invalid',
          'grant_type "password" is not supported: use authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code',
          { extra: { oauth_error: 'unsupported_grant_type' } },
        ),
      },
    ],
    401: [
      {
        summary: 'Client authentication failed',
        error: new DomainError(
          'unauthenticated',
          'client authentication failed: unknown client, wrong secret, or a method the client is not registered for',
          { extra: { oauth_error: 'invalid_client' } },
        ),
      },
    ],
  },
  'POST /v1/oauth/introspect': {
    400: [{ summary: 'Missing token', error: invalidField('body', '/token', 'Invalid input: expected string, received undefined') }],
    401: [
      {
        summary: 'Unauthenticated',
        error: new DomainError(
          'unauthenticated',
          "authenticate: a confidential client's credentials, or an API key, access token or session holding oauth:introspect",
          { extra: { oauth_error: 'invalid_client' } },
        ),
      },
    ],
    403: [
      {
        summary: 'Missing permission',
        error: new DomainError('forbidden', 'missing permission oauth:introspect', { extra: { oauth_error: 'insufficient_scope' } }),
      },
    ],
  },
  'POST /v1/oauth/revoke': {
    400: [
      { summary: 'Missing token', error: invalidField('body', '/token', 'Invalid input: expected string, received undefined') },
      {
        summary: 'Secret without client_id',
        error: new DomainError('invalid', 'client_secret was sent without client_id', { extra: { oauth_error: 'invalid_request' } }),
      },
    ],
    401: [
      {
        summary: 'Client authentication failed',
        error: new DomainError(
          'unauthenticated',
          'client authentication failed: unknown client, wrong secret, or a method the client is not registered for',
          { extra: { oauth_error: 'invalid_client' } },
        ),
      },
    ],
  },
  'GET /v1/oauth/authorization-requests/{requestID}': { 410: [REQUEST_EXPIRED] },
  'POST /v1/oauth/authorization-requests/{requestID}/approve': { 403: [NOT_A_MEMBER, NOT_A_SESSION], 410: [REQUEST_EXPIRED] },
  'POST /v1/oauth/authorization-requests/{requestID}/deny': { 410: [REQUEST_EXPIRED] },
  'POST /v1/oauth/device/lookup': { 400: [BAD_USER_CODE], 410: [DEVICE_EXPIRED], 429: [WRONG_CODES] },
  'POST /v1/oauth/device/approve': { 400: [BAD_USER_CODE], 403: [NOT_A_MEMBER, NOT_A_SESSION], 410: [DEVICE_EXPIRED], 429: [WRONG_CODES] },
  'POST /v1/oauth/device/deny': { 400: [BAD_USER_CODE], 410: [DEVICE_EXPIRED], 429: [WRONG_CODES] },
};

const REFUSALS: Array<[operation: string, examples: ErrorExample[]]> = [
  [
    'POST /v1/messages',
    [
      {
        summary: 'Type not supported',
        error: new DomainError('unsupported', 'message type poll is not supported on chatapp_official channels', {
          extra: { operation: 'messages.send', platform: 'chatapp_official', message_type: 'poll' },
        }),
      },
      {
        summary: 'Window closed',
        error: new DomainError('window_closed', windowClosedDetail({ windowHours: 24, phone: PHONE, sandbox: false }), {
          extra: { last_inbound_at: '2025-05-30T17:02:00.000Z' },
        }),
      },
      {
        summary: 'Suppressed',
        error: new DomainError('send_refused', 'the contact is suppressed on all channels: asked to stop', {
          extra: { reason: 'suppressed' },
        }),
      },
      {
        summary: 'Opted out of marketing',
        error: new DomainError(
          'send_refused',
          'the contact opted out of marketing messages (opt_out_keyword); a marketing template is refused',
          { extra: { reason: 'opted_out' } },
        ),
      },
    ],
  ],
  [
    'POST /v1/broadcasts/{broadcastID}/retry-failed',
    [
      {
        summary: 'Nothing failed',
        error: new DomainError('conflict', 'the broadcast has no failed recipient to send again', {
          extra: { broadcast_status: 'completed' },
        }),
      },
      {
        summary: 'Still sending',
        error: new DomainError('conflict', 'cannot retry-failed a broadcast that is sending (only when completed or stopped)', {
          extra: { broadcast_status: 'sending' },
        }),
      },
    ],
  ],
  [
    'POST /v1/channels/{channelID}/contacts/lookup',
    [
      {
        summary: 'Not offered',
        error: new DomainError('unsupported', 'contact lookup is not supported on chatapp_official channels', {
          extra: { operation: 'contacts.lookup', platform: 'chatapp_official' },
        }),
      },
    ],
  ],
  [
    '',
    [
      {
        summary: 'Provider refused',
        error: new DomainError('unsupported', 'provider refused: Invalid parameter (code 100)', {
          extra: { provider_error: { code: 100, title: 'Invalid parameter' } },
        }),
      },
    ],
  ],
];

/** The entry for the operation, or the table's fallback (its '' entry). */
const entryFor = <T>(table: Array<[string, T]>, operation: string): T =>
  (table.find(([key]) => key === operation) ?? table.find(([key]) => key === ''))![1];

function invalidField(location: 'body' | 'query' | 'params' | 'headers', pointer: string, message: string, detail?: string): DomainError {
  return new DomainError('invalid', detail ?? `request ${location} is invalid: ${pointer.slice(1)}: ${message}`, {
    fieldErrors: [{ pointer, location, message }],
  });
}

/** The refusals an error status stands for on the given operation, most telling first. */
export function errorExamples(status: number, context: ErrorContext): ErrorExample[] {
  const own = OPERATION_ERRORS[context.operation]?.[status];
  if (own) return own;
  const path = context.operation.split(' ')[1]!;
  switch (status) {
    case 400: {
      const examples: ErrorExample[] = [];
      if (context.bodyField) {
        const { name, type, required } = context.bodyField;
        const received = required ? 'undefined' : type === 'number' ? 'string' : 'number';
        examples.push({
          summary: `Invalid ${name}`,
          error: invalidField('body', `/${name}`, `Invalid input: expected ${type}, received ${received}`),
        });
      }
      if (context.pagedQuery)
        examples.push({ summary: 'Invalid query', error: invalidField('query', '/limit', 'Too small: expected number to be >=1') });
      if (!context.public) {
        examples.push(
          {
            summary: 'Invalid X-Organization-Id',
            error: invalidField('headers', '/x-organization-id', 'must be a UUID', 'x-organization-id must be an organization id (UUID)'),
          },
          {
            summary: 'Organization not reached',
            error: unreachedOrganization({ id: OTHER_ORG_ID, pointer: '/x-organization-id', location: 'headers' }),
          },
        );
      }
      if (examples.length === 0) {
        const param = /\{(\w+)\}/.exec(path)?.[1];
        examples.push(
          param
            ? { summary: 'Invalid path', error: invalidField('params', `/${param}`, 'Too big: expected string to have <=64 characters') }
            : { summary: 'Malformed JSON', error: new DomainError('invalid', 'malformed JSON: the request body is not valid JSON') },
        );
      }
      return examples;
    }
    case 401: {
      const signature = path.startsWith('/v1/providers/chatapp_official')
        ? 'X-Hub-Signature-256'
        : path.startsWith('/v1/providers/')
          ? 'X-Gateway-Signature'
          : undefined;
      if (signature) return [{ summary: `Bad ${signature}`, error: new DomainError('unauthenticated', `invalid or missing ${signature}`) }];
      return [{ summary: 'No credential', error: new DomainError('unauthenticated', 'invalid or missing API key') }];
    }
    case 403: {
      if (context.public) return [{ summary: 'Wrong verify token', error: new DomainError('forbidden', 'verify token does not match') }];
      if (context.sessionOnly)
        return [{ summary: 'Not a session', error: new DomainError('forbidden', 'this operation needs a dashboard session') }];
      if (context.permission) {
        return [
          {
            summary: `Missing ${context.permission}`,
            error: new DomainError('forbidden', `missing permission ${context.permission}`, { extra: { permission: context.permission } }),
          },
        ];
      }
      return [{ summary: 'Not a member', error: new DomainError('forbidden', `not a member of organization ${ORG_ID}`) }];
    }
    case 404: {
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      // Without a path parameter, what is not found is the channel the body names.
      const what = NOT_FOUND[context.operation] ?? RESOURCES[params.at(-1) ?? ''] ?? 'channel';
      return [{ summary: `${what[0]!.toUpperCase()}${what.slice(1)} not found`, error: new DomainError('not_found', `${what} not found`) }];
    }
    case 409: {
      const examples = context.conflicts === false ? [] : [entryFor(CONFLICTS, context.operation)];
      if (context.operation === 'POST /v1/messages') {
        examples.push({
          summary: 'Idempotency-Key reused',
          error: new DomainError('conflict', 'Idempotency-Key was already used with a different request body'),
        });
      } else if (context.idempotency) {
        examples.push(
          {
            summary: 'Idempotency-Key reused',
            error: new DomainError('conflict', 'Idempotency-Key was already used with a different request (method, path or body)'),
          },
          {
            summary: 'Idempotency-Key in use',
            error: new DomainError('conflict', 'a request with this Idempotency-Key is still running; retry in a moment'),
          },
        );
        if (context.idempotency === 'no-replay')
          examples.push({
            summary: 'Already done, secret not shown again',
            error: new DomainError(
              'conflict',
              'the request with this Idempotency-Key already succeeded (201); its answer is not shown again (it held a secret shown once, or was too large): read the record instead',
            ),
          });
      }
      return examples;
    }
    case 413:
      return [{ summary: 'Body too large', error: new HttpError('payload_too_large', 'request body is larger than the limit') }];
    case 414:
      return [{ summary: 'Path segment too long', error: new HttpError('uri_too_long', 'a path segment is longer than the limit') }];
    case 415:
      return [{ summary: 'Not JSON', error: new HttpError('unsupported_media_type', 'unsupported Content-Type: send application/json') }];
    case 431:
      return [
        {
          summary: 'Header fields too large',
          error: new HttpError('header_fields_too_large', 'the request header fields are larger than the server accepts (16 KiB in all)'),
        },
      ];
    case 422:
      return entryFor(REFUSALS, context.operation);
    case 429:
      return [
        context.public
          ? {
              summary: 'Rate limited',
              error: new HttpError(
                'rate_limited',
                'too many requests without a credential from this address: the limit is 600 a minute; retry in 42 s',
              ),
              retryAfter: 42,
            }
          : {
              summary: 'Rate limited',
              error: new HttpError('rate_limited', 'too many requests with this API key: the limit is 6000 a minute; retry in 42 s'),
              retryAfter: 42,
            },
      ];
    case 503:
      return [
        {
          summary: 'Database unavailable',
          error: new DomainError('unavailable', 'the database is unavailable; try again after the time in Retry-After'),
          retryAfter: 5,
        },
      ];
    default:
      return [
        {
          summary: 'Unexpected error',
          error: new HttpError('internal', `unexpected error; quote request id ${EXAMPLE_REQUEST_ID} when reporting it`),
        },
      ];
  }
}
