/**
 * Organizations and their members. Routes that name an organization in the path act in that one (the
 * path is the requested organization, as X-Organization-Id is elsewhere): one the credential does not
 * reach answers 404 exactly like an unknown id.
 */
import { z } from 'zod';
import { changeMemberRole, listMembers, removeMember, type MemberDeps } from '../../domain/organizations/members.ts';
import {
  createOwnOrganization,
  getOrganization,
  listOrganizations,
  renameOrganization,
  type OrganizationDeps,
} from '../../domain/organizations/organizations.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { userActor } from './auth.ts';
import { presentOrganization, presentMember } from './organizations.presenters.ts';

const TAG = 'organizations';
export const RoleSchema = z.enum(['owner', 'admin', 'member']);

export const OrganizationSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    role: RoleSchema.nullable().meta({ description: "The caller's role in it; null for an API key" }),
    created_at: z.string().meta({ format: 'date-time' }),
    updated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Organization' });

export const MemberSchema = z
  .object({
    user_id: z.uuid(),
    name: z.string(),
    email: z.string(),
    role: RoleSchema,
    joined_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Member' });

const OrganizationNameSchema = z.string().trim().min(1).max(200).meta({ example: 'Acme GmbH' });
const OrganizationBodySchema = z.object({ name: OrganizationNameSchema }).meta({ id: 'OrganizationRequest' });
const RoleBodySchema = z.object({ role: RoleSchema }).meta({ id: 'MemberRoleRequest' });

export const OrganizationParams = z.object({ organizationID: PathId });
const MemberParams = z.object({ organizationID: PathId, userID: PathId });

/** The route config of an operation acting in the path's organization. */
export const inPathOrganization = (extra: { permission?: 'members:read' | 'members:write'; sessionOnly?: boolean } = {}) => ({
  auth: { organizationParam: 'organizationID', ...extra },
});

/**
 * What the organization routes use: the database, the clock, and the process's credential caches (API keys,
 * OAuth access) to forget after a role change or a removal; other processes hear of it from the database (triggers NOTIFY).
 */
export type OrganizationServices = OrganizationDeps & MemberDeps & { credentials: { forget(): void } };

const ENDS =
  "In one transaction the membership ends, the member's sessions in this organization end, the API keys they created in it are revoked and the OAuth access they gave for it is withdrawn (grants reaching nothing else are revoked with their tokens): all of it stops working on the next request.";

export async function registerOrganizationRoutes(app: App, services: OrganizationServices) {
  const { credentials, ...deps } = services;

  app.post(
    '/v1/organizations',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: [TAG],
        summary: 'Create an organization',
        description:
          'The signed-in user creates an organization and becomes its owner. Act in it with X-Organization-Id, or through its /v1/organizations/{organizationID} routes.',
        security: [{ session: [] }],
        body: OrganizationBodySchema,
        response: { 201: dataOf(OrganizationSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const created = await createOwnOrganization(deps, userActor(actorOf(request)), { name: request.body.name });
      return reply.code(201).send({ data: presentOrganization(created) });
    },
  );

  app.get(
    '/v1/organizations',
    {
      schema: {
        tags: [TAG],
        summary: 'List your organizations',
        description:
          'With a session: every organization the user belongs to, with their role, in the order they joined them. An API key sees its own organization; an OAuth token the organizations its grant reaches, oldest first. Paginated: pass `meta.next_cursor` as `cursor` for the next page.',
        querystring: PageQuerySchema,
        response: { 200: listOf(OrganizationSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await listOrganizations(deps, actorOf(request), request.query);
      return { data: page.items.map(presentOrganization), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/organizations/:organizationID',
    {
      config: inPathOrganization(),
      schema: {
        tags: [TAG],
        summary: 'Get an organization',
        description: "Any credential that reaches the organization; another organization's id answers 404 like an unknown one.",
        params: OrganizationParams,
        response: { 200: dataOf(OrganizationSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentOrganization(await getOrganization(deps, actorOf(request))) }),
  );

  app.patch(
    '/v1/organizations/:organizationID',
    {
      config: inPathOrganization({ permission: 'members:write' }),
      schema: {
        tags: [TAG],
        summary: 'Rename an organization',
        description: 'Owners and admins (or a credential holding `members:write`).',
        params: OrganizationParams,
        body: OrganizationBodySchema,
        response: { 200: dataOf(OrganizationSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentOrganization(await renameOrganization(deps, actorOf(request), { name: request.body.name })) }),
  );

  app.post(
    '/v1/organizations/:organizationID/leave',
    {
      config: inPathOrganization({ sessionOnly: true }),
      schema: {
        tags: [TAG],
        summary: 'Leave an organization',
        description: `The signed-in user leaves. ${ENDS} The last owner cannot leave (409): make another member an owner first.`,
        security: [{ session: [] }],
        params: OrganizationParams,
        response: { 204: z.null().describe('Left'), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request, reply) => {
      const actor = userActor(actorOf(request));
      await removeMember(deps, actor, { userId: actor.userId });
      credentials.forget();
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/organizations/:organizationID/members',
    {
      config: inPathOrganization({ permission: 'members:read' }),
      schema: {
        tags: [TAG],
        summary: 'List members',
        description:
          'Every member with their role, oldest first (by the time they joined, then user id). Paginated: pass `meta.next_cursor` as `cursor` for the next page.',
        params: OrganizationParams,
        querystring: PageQuerySchema,
        response: { 200: listOf(MemberSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const page = await listMembers(deps, actorOf(request), request.query);
      return { data: page.items.map(presentMember), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.patch(
    '/v1/organizations/:organizationID/members/:userID',
    {
      config: inPathOrganization({ permission: 'members:write' }),
      schema: {
        tags: [TAG],
        summary: "Change a member's role",
        description:
          "Owners and admins. Only an owner (by session) makes or unmakes owners (403 otherwise); the last owner cannot be demoted (409). The new role applies from the member's next request.",
        params: MemberParams,
        body: RoleBodySchema,
        response: { 200: dataOf(MemberSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const member = await changeMemberRole(deps, actorOf(request), { userId: request.params.userID, role: request.body.role });
      credentials.forget();
      return { data: presentMember(member) };
    },
  );

  app.delete(
    '/v1/organizations/:organizationID/members/:userID',
    {
      config: inPathOrganization({ permission: 'members:write' }),
      schema: {
        tags: [TAG],
        summary: 'Remove a member',
        description: `Owners and admins; only an owner removes an owner, and the last owner cannot be removed (409). ${ENDS}`,
        params: MemberParams,
        response: { 204: z.null().describe('Removed'), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request, reply) => {
      await removeMember(deps, actorOf(request), { userId: request.params.userID });
      credentials.forget();
      return reply.code(204).send(null);
    },
  );
}
