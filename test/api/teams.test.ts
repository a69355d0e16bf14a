/**
 * Teams and assignment: teams with members and capacities (each change an event), members'
 * availability (their own or an admin's), a channel routing its conversations to a team, round robin
 * and least busy under capacity, the queue that waits for a member to come online or free a seat, a
 * reopened conversation assigned again, and another organization's team never usable.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { customerWrites, eventsOf, officialChannel } from '../messages-helpers.ts';
import { inviteNewMember } from '../org-helpers.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
});
after(() => server.close());

type As = { key?: string; cookie?: string };
const call = (method: string, path: string, as: As, body?: unknown) => request(server, method, path, { ...as, body });
const asKey = (): As => ({ key: server.apiKey });
const pointers = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer);
type Team = {
  id: string;
  name: string;
  queued: number;
  members: Array<{ user_id: string; capacity: number | null; open_conversations: number }>;
};

async function createTeam(body: Record<string, unknown>): Promise<Team> {
  const res = await call('POST', '/v1/teams', asKey(), body);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}
const online = async (userId: string, availability = 'online') => {
  const res = await call('PUT', `/v1/members/${userId}/availability`, asKey(), { availability });
  assert.equal(res.status, 200, res.text);
};
const queue = async (teamId: string) =>
  (await call('GET', `/v1/conversations?team_id=${teamId}&assignee=unassigned&status=open`, asKey())).body.data as Array<{
    id: string;
    peer_phone: string;
  }>;
const conversationOf = async (channelId: string, phone: string) => {
  const res = await call('GET', `/v1/conversations?channel_id=${channelId}&q=${phone}`, asKey());
  return res.body.data[0] as { id: string; assignee_user_id: string | null; team_id: string | null; team: { name: string } | null };
};

test('teams: created with members, changed, members added and taken out, deleted; names unique; each change an event', async () => {
  const ana = await inviteNewMember(server, asKey(), server.organizationId, 'member', 'ana');
  const team = await createTeam({
    name: 'Billing',
    assignment_policy: 'least_busy',
    default_capacity: 4,
    members: [{ user_id: ana.userId }],
  });
  assert.deepEqual(
    team.members.map((m) => [m.user_id, m.capacity, m.open_conversations]),
    [[ana.userId, null, 0]],
  );
  const taken = await call('POST', '/v1/teams', asKey(), { name: 'billing' });
  assert.equal(taken.status, 409, taken.text);
  assert.deepEqual(pointers(taken), ['/name']);
  for (const [body, pointer] of [
    [{ name: 'X', members: [{ user_id: '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d99' }] }, '/members/0/user_id'],
    [{ name: 'X', members: [{ user_id: ana.userId }, { user_id: ana.userId }] }, '/members/1/user_id'],
    [{ name: 'X', assignment_policy: 'random' }, '/assignment_policy'],
    [{ name: 'X', default_capacity: -1 }, '/default_capacity'],
    [{ name: '' }, '/name'],
  ] as const) {
    const res = await call('POST', '/v1/teams', asKey(), body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.deepEqual(pointers(res), [pointer], JSON.stringify(body));
  }

  const bea = await inviteNewMember(server, asKey(), server.organizationId, 'member', 'bea');
  const added = await call('PUT', `/v1/teams/${team.id}/members/${bea.userId}`, asKey(), { capacity: 2 });
  assert.equal(added.status, 200, added.text);
  assert.equal(added.body.data.members.length, 2);
  const unchanged = await call('PUT', `/v1/teams/${team.id}/members/${bea.userId}`, asKey(), {});
  assert.equal(unchanged.body.data.members.find((m: { user_id: string }) => m.user_id === bea.userId).capacity, 2, 'kept');
  assert.equal((await call('PUT', `/v1/teams/${team.id}/members/0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d99`, asKey(), {})).status, 404);
  const patched = await call('PATCH', `/v1/teams/${team.id}`, asKey(), { name: 'Billing & refunds', default_capacity: null });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.data.default_capacity, null);
  assert.equal((await call('DELETE', `/v1/teams/${team.id}/members/${ana.userId}`, asKey())).status, 204);
  assert.equal((await call('DELETE', `/v1/teams/${team.id}/members/${ana.userId}`, asKey())).status, 404);
  assert.deepEqual(
    (await call('GET', `/v1/teams/${team.id}`, asKey())).body.data.members.map((m: { user_id: string }) => m.user_id),
    [bea.userId],
  );

  // A member reads teams but does not change them; sets their own availability, not another's.
  assert.equal((await call('GET', '/v1/teams', { cookie: ana.cookie })).status, 200);
  assert.equal((await call('POST', '/v1/teams', { cookie: ana.cookie }, { name: 'Mine' })).status, 403);
  assert.equal(
    (await call('PUT', `/v1/members/${bea.userId}/availability`, { cookie: ana.cookie }, { availability: 'online' })).status,
    403,
  );
  const mine = await call('PUT', '/v1/me/availability', { cookie: ana.cookie }, { availability: 'away' });
  assert.equal(mine.status, 200, mine.text);
  assert.deepEqual([mine.body.data.user_id, mine.body.data.availability], [ana.userId, 'away']);
  assert.equal((await call('GET', '/v1/me/availability', { cookie: ana.cookie })).body.data.availability, 'away');
  assert.equal((await call('PUT', '/v1/me/availability', asKey(), { availability: 'online' })).status, 403, 'an API key is no member');
  const bad = await call('PUT', '/v1/me/availability', { cookie: ana.cookie }, { availability: 'busy' });
  assert.deepEqual([bad.status, pointers(bad)], [400, ['/availability']]);

  assert.equal((await call('DELETE', `/v1/teams/${team.id}`, asKey())).status, 204);
  assert.equal((await call('GET', `/v1/teams/${team.id}`, asKey())).status, 404);
  const teamEvents = (await eventsOf(server, 'team.updated')).map((e) => e.payload.name);
  assert.deepEqual(teamEvents, ['Billing', 'Billing & refunds', 'Billing & refunds'], 'member added, team changed, member taken out');
  assert.equal((await eventsOf(server, 'team.created')).length, 1);
  assert.deepEqual(
    (await eventsOf(server, 'team.deleted')).map((e) => e.payload.member_user_ids),
    [[bea.userId]],
  );
  assert.deepEqual(
    (await eventsOf(server, 'member.availability_changed')).map((e) => [
      e.payload.user_id,
      e.payload.availability,
      e.payload.previous_availability,
    ]),
    [[ana.userId, 'away', 'offline']],
  );
});

test('round robin under capacity: the queue waits for a free seat, and a resolve frees one', async () => {
  const [ana, bea] = [
    await inviteNewMember(server, asKey(), server.organizationId, 'member', 'rr-ana'),
    await inviteNewMember(server, asKey(), server.organizationId, 'member', 'rr-bea'),
  ];
  const team = await createTeam({
    name: 'Support',
    assignment_policy: 'round_robin',
    default_capacity: 1,
    members: [{ user_id: ana.userId }, { user_id: bea.userId }],
  });
  await online(ana.userId);
  await online(bea.userId);
  const channel = await officialChannel(server, 'Support line');
  const routed = await call('PUT', `/v1/channels/${channel.id}/assignment`, asKey(), { team_id: team.id });
  assert.deepEqual(routed.body.data, { channel_id: channel.id, team_id: team.id });

  for (const phone of ['+4915100000101', '+4915100000102', '+4915100000103']) await customerWrites(server, channel.id, phone);
  const assigned = await eventually('two assigned, one waiting', async () => {
    const rows = await Promise.all(['4915100000101', '4915100000102', '4915100000103'].map((p) => conversationOf(channel.id, p)));
    return rows.filter((r) => r.assignee_user_id).length === 2 ? rows : undefined;
  });
  assert.deepEqual(new Set(assigned.map((r) => r.assignee_user_id).filter(Boolean)), new Set([ana.userId, bea.userId]), 'one each');
  assert.ok(assigned.every((r) => r.team_id === team.id && r.team?.name === 'Support'));
  const waiting = await queue(team.id);
  assert.equal(waiting.length, 1);
  assert.equal((await call('GET', `/v1/teams/${team.id}`, asKey())).body.data.queued, 1);

  // Another message of the waiting conversation changes nothing; resolving one frees its member's seat.
  const freed = assigned.find((r) => r.assignee_user_id)!;
  const resolved = await call('PATCH', `/v1/conversations/${freed.id}`, asKey(), { status: 'resolved' });
  assert.equal(resolved.status, 200, resolved.text);
  const last = await eventually('the waiting one assigned to the freed member', async () => {
    const row = await conversationOf(channel.id, waiting[0]!.peer_phone);
    return row.assignee_user_id ? row : undefined;
  });
  assert.equal(last.assignee_user_id, freed.assignee_user_id);
  assert.deepEqual(await queue(team.id), []);
  const events = (await eventsOf(server, 'conversation.assigned')).filter((e) => e.payload.team_id === team.id);
  assert.ok(
    events.some((e) => e.payload.assignee_user_id === null && e.payload.previous_team_id === null),
    'routing to the team is an assignment to it',
  );
  assert.equal(events.filter((e) => e.payload.assignee_user_id !== null).length, 3);

  // The resolved one comes back when the customer writes: it keeps its assignee, who now holds two.
  await customerWrites(server, channel.id, `+${(await call('GET', `/v1/conversations/${freed.id}`, asKey())).body.data.peer_phone}`);
  const back = await eventually('reopened', async () => {
    const row = (await call('GET', `/v1/conversations/${freed.id}`, asKey())).body.data;
    return row.status === 'open' ? row : undefined;
  });
  assert.equal(back.assignee_user_id, freed.assignee_user_id, 'a reopened conversation keeps its assignee');
});

test('least busy, availability and the queue: nothing goes to an offline member; coming online takes the queue', async () => {
  const [cai, dora] = [
    await inviteNewMember(server, asKey(), server.organizationId, 'member', 'lb-cai'),
    await inviteNewMember(server, asKey(), server.organizationId, 'member', 'lb-dora'),
  ];
  const team = await createTeam({
    name: 'Sales',
    assignment_policy: 'least_busy',
    members: [{ user_id: cai.userId }, { user_id: dora.userId, capacity: 0 }],
  });
  const channel = await officialChannel(server, 'Sales line');
  await call('PUT', `/v1/channels/${channel.id}/assignment`, asKey(), { team_id: team.id });
  for (const phone of ['+4915100000201', '+4915100000202']) await customerWrites(server, channel.id, phone);
  await eventually('both queued', async () => (await queue(team.id)).length === 2);
  assert.ok(
    (await Promise.all(['4915100000201', '4915100000202'].map((p) => conversationOf(channel.id, p)))).every((r) => !r.assignee_user_id),
  );

  await online(dora.userId);
  // Dora has capacity 0: coming online takes nothing; Cai coming online takes both (no limit).
  const camePage = await call('PUT', '/v1/me/availability', { cookie: cai.cookie }, { availability: 'online' });
  assert.equal(camePage.status, 200, camePage.text);
  await eventually('both assigned to Cai', async () => (await queue(team.id)).length === 0);
  for (const p of ['4915100000201', '4915100000202']) assert.equal((await conversationOf(channel.id, p)).assignee_user_id, cai.userId);

  // Manual: a conversation put in a manual team's queue waits there.
  const manual = await createTeam({ name: 'Escalations', members: [{ user_id: cai.userId }] });
  const row = await conversationOf(channel.id, '4915100000201');
  const moved = await call('PATCH', `/v1/conversations/${row.id}`, asKey(), { team_id: manual.id, assignee_user_id: null });
  assert.equal(moved.status, 200, moved.text);
  assert.equal(moved.body.data.team_id, manual.id);
  await eventually('in the manual team’s queue', async () => (await queue(manual.id)).length === 1);
  assert.equal((await conversationOf(channel.id, '4915100000201')).assignee_user_id, null);
});

test('another organization’s team is never usable, and its conversations never listed', async () => {
  const mine = await createTeam({ name: 'Isolated' });
  const other = await createOtherOrganization(server, 'teams-other');
  const theirs = await request(server, 'POST', '/v1/teams', { key: other.apiKey, body: { name: 'Theirs' } });
  assert.equal(theirs.status, 201, theirs.text);
  const channel = await officialChannel(server, 'Iso line');
  const res = await call('PUT', `/v1/channels/${channel.id}/assignment`, asKey(), { team_id: theirs.body.data.id });
  assert.deepEqual([res.status, pointers(res)], [400, ['/team_id']]);
  await customerWrites(server, channel.id, '+4915100000301');
  const conversation = await eventually('the conversation', () => conversationOf(channel.id, '4915100000301'));
  const patched = await call('PATCH', `/v1/conversations/${conversation.id}`, asKey(), { team_id: theirs.body.data.id });
  assert.deepEqual([patched.status, pointers(patched)], [400, ['/team_id']]);
  assert.equal((await request(server, 'GET', `/v1/teams/${mine.id}`, { key: other.apiKey })).status, 404);
  assert.deepEqual(
    (await request(server, 'GET', '/v1/teams', { key: other.apiKey })).body.data.map((t: Team) => t.name),
    ['Theirs'],
  );
  assert.equal(
    (await request(server, 'PUT', `/v1/channels/${channel.id}/assignment`, { key: other.apiKey, body: { team_id: null } })).status,
    404,
  );
});
