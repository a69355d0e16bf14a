/**
 * Permission names. API key permissions and OAuth scopes are the same strings, so a key and a
 * token are checked by one rule.
 */
export const PERMISSIONS = [
  'messages:read',
  'messages:send',
  'channels:read',
  'channels:write',
  'contacts:read',
  'contacts:write',
  'crm:read',
  'crm:write',
  'templates:read',
  'templates:write',
  'teams:read',
  'teams:write',
  'webhooks:read',
  'webhooks:write',
  'automations:read',
  'automations:write',
  'bots:read',
  'bots:write',
  'api_keys:read',
  'api_keys:write',
  'members:read',
  'members:write',
  'oauth_clients:read',
  'oauth_clients:write',
  'oauth:introspect',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const PERMISSION_DESCRIPTIONS: Record<Permission, string> = {
  'messages:read': 'Read messages, their statuses and conversations',
  'messages:send': 'Send messages and change conversations',
  'channels:read': 'Read channels, their status and capabilities',
  'channels:write': 'Create, change, connect and delete channels',
  'contacts:read': 'Read contacts and their notes, tags, consents and suppressions',
  'contacts:write': 'Create, change, import and delete contacts and their sub-records',
  'crm:read':
    'Read companies, pipelines and their stages, deals and their stage history, tasks, relationships, comments, lists, segments and orders',
  'crm:write':
    'Create, change and delete companies, pipelines and their stages, deals, tasks, relationships, comments, lists and segments; create orders and change their status',
  'templates:read': 'Read message templates',
  'templates:write': 'Sync and submit message templates',
  'teams:read': 'Read teams, their members, assignment policies and queues, and members’ availability',
  'teams:write': 'Create, change and delete teams, their members and capacities; route channels to teams; set any member’s availability',
  'webhooks:read': 'Read webhook endpoints, deliveries and events',
  'webhooks:write': 'Create, change, test and retry webhook endpoints and deliveries',
  'automations:read': 'Read automation rules, their run logs and dry runs',
  'automations:write': 'Create, change and delete automation rules',
  'bots:read': 'Read bots (external URLs that answer conversations) and who owns a conversation',
  'bots:write': 'Create, change and delete bots',
  'api_keys:read': 'List API keys',
  'api_keys:write': 'Create and revoke API keys',
  'members:read': "List the organization's members and invitations",
  'members:write': 'Invite members, change their roles, remove them and send them password-reset links',
  'oauth_clients:read': "List the organization's OAuth clients",
  'oauth_clients:write': 'Register, change and delete OAuth clients',
  'oauth:introspect': 'Introspect OAuth tokens that reach the organization',
};

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

export type Role = 'owner' | 'admin' | 'member';

/** What owners and admins may do and members may not. */
const MEMBER_WITHHELD: ReadonlySet<Permission> = new Set([
  'api_keys:write',
  'webhooks:write',
  'automations:write',
  'bots:write',
  'channels:write',
  'members:write',
  'oauth_clients:write',
  'teams:write',
]);

/** What a dashboard user of each role may do. Owners and admins hold every permission. */
export function permissionsForRole(role: Role): readonly Permission[] {
  switch (role) {
    case 'owner':
    case 'admin':
      return PERMISSIONS;
    case 'member':
      return PERMISSIONS.filter((p) => !MEMBER_WITHHELD.has(p));
    default:
      return role satisfies never;
  }
}
