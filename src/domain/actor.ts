/**
 * Who is acting: every domain function takes one, and every query it makes is scoped by
 * actor.organizationId. It never carries a request object.
 */
import type { Permission, Role } from './permissions.ts';

export type Actor =
  | { kind: 'user'; organizationId: string; userId: string; sessionId: string; role: Role; permissions: ReadonlySet<Permission> }
  | { kind: 'api_key'; organizationId: string; apiKeyId: string; permissions: ReadonlySet<Permission> }
  | { kind: 'oauth'; organizationId: string; userId: string; clientId: string; tokenId: string; permissions: ReadonlySet<Permission> }
  | { kind: 'system'; organizationId: string; permissions: ReadonlySet<Permission> };
