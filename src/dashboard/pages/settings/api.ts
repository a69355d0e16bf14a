/** The settings area's calls: the organization, its members and invitations, the account, authorized apps. */
import type { AccountChangeRequest, PasswordChangedRecord } from '../../../http/v1/account.ts';
import type { UserSessionRecord } from '../../../http/v1/auth.presenters.ts';
import type { CreatedInvitationRecord, InvitationRecord } from '../../../http/v1/invitations.presenters.ts';
import type { MemberRecord, OrganizationRecord } from '../../../http/v1/organizations.presenters.ts';
import type { OAuthAuthorizationRecord } from '../../../http/v1/authorizations.presenters.ts';
import type { PasswordResetLinkRecord } from '../../../http/v1/password-resets.ts';
import type { AutomationRuleRecord, AutomationRunRecord } from '../../../http/v1/automations.presenters.ts';
import type { Role } from '../../../domain/permissions.ts';
import type { BotRecord, ConversationOwnerRecord } from '../../../http/v1/bots.presenters.ts';
import type { CreateBotRequest, UpdateBotRequest } from '../../../http/v1/bots.ts';
import { call, currentOrganization, type Page } from '../../api.ts';

export type {
  AutomationRuleRecord,
  AutomationRunRecord,
  BotRecord,
  ConversationOwnerRecord,
  CreatedInvitationRecord,
  InvitationRecord,
  MemberRecord,
  OAuthAuthorizationRecord,
  OrganizationRecord,
  PasswordResetLinkRecord,
};

export const ROLES: ReadonlyArray<{ value: Role; label: string; description: string }> = [
  { value: 'member', label: 'Member', description: 'Works in the inbox and contacts' },
  { value: 'admin', label: 'Admin', description: 'Also manages channels, developers and members' },
  { value: 'owner', label: 'Owner', description: 'Everything, including owners' },
];

const enc = encodeURIComponent;
/** The path of the organization the dashboard acts in. */
const org = () => `/v1/organizations/${enc(currentOrganization() ?? '')}`;
/** Rows per page of the members and invitations lists (test/settings.browser.test.ts seeds one more). */
export const PAGE_SIZE = 50;
const data = <T>(r: { data: T }) => r.data;

export const settingsApi = {
  organization: () => call<{ data: OrganizationRecord }>('GET', org()).then(data),
  rename: (name: string) => call<{ data: OrganizationRecord }>('PATCH', org(), { body: { name } }).then(data),
  leave: () => call<void>('POST', `${org()}/leave`),
  createOrganization: (name: string) => call<{ data: OrganizationRecord }>('POST', '/v1/organizations', { body: { name } }).then(data),

  members: (cursor?: string) => call<Page<MemberRecord>>('GET', `${org()}/members`, { query: { limit: String(PAGE_SIZE), cursor } }),
  changeRole: (userId: string, role: Role) =>
    call<{ data: MemberRecord }>('PATCH', `${org()}/members/${enc(userId)}`, { body: { role } }).then(data),
  removeMember: (userId: string) => call<void>('DELETE', `${org()}/members/${enc(userId)}`),
  passwordReset: (userId: string) =>
    call<{ data: PasswordResetLinkRecord }>('POST', `${org()}/members/${enc(userId)}/password-reset`).then(data),

  invitations: (cursor?: string) =>
    call<Page<InvitationRecord>>('GET', `${org()}/invitations`, { query: { limit: String(PAGE_SIZE), cursor } }),
  invite: (email: string, role: Role) =>
    call<{ data: CreatedInvitationRecord }>('POST', `${org()}/invitations`, { body: { email, role } }).then(data),
  cancelInvitation: (id: string) => call<void>('DELETE', `${org()}/invitations/${enc(id)}`),

  updateAccount: (input: AccountChangeRequest) =>
    call<{ data: UserSessionRecord }>('PATCH', '/v1/auth/account', { body: input }).then(data),
  changePassword: (currentPassword: string, newPassword: string) =>
    call<{ data: PasswordChangedRecord }>('POST', '/v1/auth/password', {
      body: { current_password: currentPassword, new_password: newPassword },
    }).then(data),

  authorizations: (cursor?: string) => call<Page<OAuthAuthorizationRecord>>('GET', '/v1/auth/authorizations', { query: { cursor } }),
  revokeAuthorization: (id: string) => call<void>('DELETE', `/v1/auth/authorizations/${enc(id)}`),

  automations: (cursor?: string) => call<Page<AutomationRuleRecord>>('GET', '/v1/automations', { query: { cursor } }),
  createAutomation: (body: AutomationInput) => call<{ data: AutomationRuleRecord }>('POST', '/v1/automations', { body }).then(data),
  updateAutomation: (id: string, body: AutomationInput) =>
    call<{ data: AutomationRuleRecord }>('PATCH', `/v1/automations/${enc(id)}`, { body }).then(data),
  deleteAutomation: (id: string) => call<void>('DELETE', `/v1/automations/${enc(id)}`),
  automationRuns: (id: string) => (cursor?: string) =>
    call<Page<AutomationRunRecord>>('GET', `/v1/automations/${enc(id)}/runs`, { query: { cursor } }),
};

/** A rule as the editor sends it. */
export type AutomationInput = Pick<AutomationRuleRecord, 'name' | 'enabled' | 'trigger' | 'conditions' | 'actions'>;
/** Bots (docs/bots.md) and who owns a conversation. */
export const botsApi = {
  list: () => call<{ data: BotRecord[] }>('GET', '/v1/bots').then(data),
  create: (input: CreateBotRequest) => call<{ data: BotRecord & { secret: string } }>('POST', '/v1/bots', { body: input }).then(data),
  update: (botId: string, input: UpdateBotRequest) =>
    call<{ data: BotRecord }>('PATCH', `/v1/bots/${enc(botId)}`, { body: input }).then(data),
  owner: (conversationId: string) =>
    call<{ data: ConversationOwnerRecord }>('GET', `/v1/conversations/${enc(conversationId)}/owner`).then(data),
  takeOver: (conversationId: string) =>
    call<{ data: ConversationOwnerRecord }>('POST', `/v1/conversations/${enc(conversationId)}/handoff`, { body: { to: 'human' } }).then(
      data,
    ),
};
