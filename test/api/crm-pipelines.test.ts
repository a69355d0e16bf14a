/**
 * Pipelines through the API: the default pipeline of every organization, the stage list's rules
 * (1 to 100 stages, one open at least, names distinct), the whole list rewritten with ids kept, one
 * stage at a time, the default moved, and deletions of stages and pipelines that hold deals (a target
 * stage needed: 400 naming move_deals_to without it; the deals moved with their events and history).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_PIPELINE } from '../../src/domain/pipelines/defaults.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { assertNames, created, eventTail } from '../crm-helpers.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true });
});
after(() => server.close());

const key = () => ({ key: server.apiKey });
type Stage = { id: string; name: string; probability: number; kind: string; position: number };
const shape = (stages: Stage[]) => stages.map((s) => [s.name, s.probability, s.kind, s.position]);

async function pipelineOf(id: string): Promise<{ id: string; name: string; is_default: boolean; stages: Stage[] }> {
  const res = await request(server, 'GET', `/v1/pipelines/${id}`, key());
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function newPipeline(
  name: string,
  stages: Array<Partial<Stage>> = [
    { name: 'Lead', probability: 10 },
    { name: 'Demo', probability: 40 },
    { name: 'Won', probability: 100, kind: 'won' },
  ],
) {
  return (await created(server, '/v1/pipelines', { name, stages })) as { id: string; name: string; is_default: boolean; stages: Stage[] };
}

test('every organization has the default pipeline with its stages in order', async () => {
  const other = await createOtherOrganization(server, 'pipelines');
  for (const apiKey of [server.apiKey, other.apiKey]) {
    const list = await request(server, 'GET', '/v1/pipelines', { key: apiKey });
    assert.equal(list.status, 200, list.text);
    const defaults = (list.body.data as Array<{ is_default: boolean; name: string; stages: Stage[] }>).filter((p) => p.is_default);
    assert.equal(defaults.length, 1);
    assert.equal(defaults[0]!.name, DEFAULT_PIPELINE.name);
    assert.deepEqual(
      shape(defaults[0]!.stages),
      DEFAULT_PIPELINE.stages.map((s, i) => [s.name, s.probability, s.kind, i]),
    );
  }
});

test('a pipeline is created with 1 to 100 stages, at least one open, their names distinct; what is wrong is named', async () => {
  const post = (body: unknown) => request(server, 'POST', '/v1/pipelines', { ...key(), body });
  assertNames(await post({ name: 'P', stages: [] }), 400, '/stages');
  assertNames(
    await post({ name: 'P', stages: Array.from({ length: 101 }, (_, i) => ({ name: `S${i}`, probability: 1 })) }),
    400,
    '/stages',
  );
  assertNames(await post({ name: 'P', stages: [{ name: 'Won', probability: 100, kind: 'won' }] }), 400, '/stages');
  assertNames(
    await post({
      name: 'P',
      stages: [
        { name: 'A', probability: 1 },
        { name: ' a ', probability: 2 },
      ],
    }),
    400,
    '/stages/1/name',
  );
  assertNames(await post({ name: 'P', stages: [{ name: 'A', probability: 101 }] }), 400, '/stages/0/probability');
  assertNames(await post({ name: 'P', stages: [{ name: 'A', probability: 5, kind: 'maybe' }] }), 400, '/stages/0/kind');
  assertNames(await post({ name: 'P', stages: [{ name: 'A', probability: 5, id: crypto.randomUUID() }] }), 400, '/stages/0');
  assertNames(await post({ stages: [{ name: 'A', probability: 5 }] }), 400, '/name');
  const hundred = await newPipeline(
    'Hundred',
    Array.from({ length: 100 }, (_, i) => ({ name: `S${i}`, probability: i })),
  );
  assert.equal(hundred.stages.length, 100);
  assert.equal(hundred.is_default, false);
  assert.deepEqual(
    hundred.stages.map((s) => s.position),
    [...Array(100).keys()],
  );
  const full = await request(server, 'POST', `/v1/pipelines/${hundred.id}/stages`, { ...key(), body: { name: 'S100', probability: 1 } });
  assert.equal(full.status, 409, full.text);
  assert.match(full.body.detail, /at most 100 stages/);
});

test('PATCH with the whole stage list reorders, renames, adds and removes stages, keeping the ids of those it keeps', async () => {
  const pipeline = await newPipeline('Rewritten');
  const [lead, demo, won] = pipeline.stages as [Stage, Stage, Stage];
  const res = await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}`, {
    ...key(),
    body: {
      name: 'Rewritten again',
      stages: [
        { id: demo.id, name: 'Product demo', probability: 45 },
        { name: 'Pilot', probability: 70 },
        { id: lead.id.toUpperCase(), name: 'Lead', probability: 10 },
        { id: won.id, name: 'Won', probability: 100, kind: 'won' },
        { name: 'Lost', probability: 0, kind: 'lost' },
      ],
    },
  });
  assert.equal(res.status, 200, res.text);
  const stages = res.body.data.stages as Stage[];
  assert.equal(res.body.data.name, 'Rewritten again');
  assert.deepEqual(shape(stages), [
    ['Product demo', 45, 'open', 0],
    ['Pilot', 70, 'open', 1],
    ['Lead', 10, 'open', 2],
    ['Won', 100, 'won', 3],
    ['Lost', 0, 'lost', 4],
  ]);
  assert.deepEqual([stages[0]!.id, stages[2]!.id, stages[3]!.id], [demo.id, lead.id, won.id], 'ids kept');

  // A stage left out goes (it holds no deal); one that holds a deal stays unless it is deleted with a target.
  const dropped = await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}`, {
    ...key(),
    body: { stages: stages.filter((s) => s.name !== 'Pilot').map(({ id, name, probability, kind }) => ({ id, name, probability, kind })) },
  });
  assert.equal(dropped.status, 200, dropped.text);
  assert.deepEqual(
    (dropped.body.data.stages as Stage[]).map((s) => s.name),
    ['Product demo', 'Lead', 'Won', 'Lost'],
  );
  await created(server, '/v1/deals', { name: 'Held', pipeline_id: pipeline.id, stage_id: lead.id });
  const refused = await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}`, {
    ...key(),
    body: { stages: [{ id: demo.id, name: 'Product demo', probability: 45 }] },
  });
  assertNames(refused, 400, '/stages');
  assert.match(refused.body.detail, /"Lead".*holds 1 deal/);
  const foreign = await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}`, {
    ...key(),
    body: { stages: [{ id: crypto.randomUUID(), name: 'X', probability: 1 }] },
  });
  assertNames(foreign, 400, '/stages/0/id');
  assertNames(
    await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}`, {
      ...key(),
      body: { stages: [{ id: won.id, name: 'Won', probability: 100, kind: 'won' }] },
    }),
    400,
    '/stages',
  );
  assert.equal((await pipelineOf(pipeline.id)).stages.length, 4, 'a refused change changed nothing');
});

test('one stage at a time: added at a position, renamed and moved, its kind kept open when it is the last open one', async () => {
  const pipeline = await newPipeline('Stagewise');
  const added = await request(server, 'POST', `/v1/pipelines/${pipeline.id}/stages`, {
    ...key(),
    body: { name: 'Qualified', probability: 25, position: 1 },
  });
  assert.equal(added.status, 201, added.text);
  assert.deepEqual({ ...added.body.data, id: undefined }, { id: undefined, name: 'Qualified', probability: 25, kind: 'open', position: 1 });
  const last = await request(server, 'POST', `/v1/pipelines/${pipeline.id}/stages`, {
    ...key(),
    body: { name: 'Lost', probability: 0, kind: 'lost', position: 99 },
  });
  assert.equal(last.body.data.position, 4, 'past the end: last');
  assertNames(
    await request(server, 'POST', `/v1/pipelines/${pipeline.id}/stages`, { ...key(), body: { name: 'LEAD', probability: 5 } }),
    409,
    '/name',
  );
  assertNames(await request(server, 'POST', `/v1/pipelines/${pipeline.id}/stages`, { ...key(), body: { name: 'X' } }), 400, '/probability');

  const [lead] = pipeline.stages as [Stage];
  const moved = await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}/stages/${lead.id}`, {
    ...key(),
    body: { name: 'Inbound lead', position: 2 },
  });
  assert.equal(moved.status, 200, moved.text);
  assert.deepEqual(shape((await pipelineOf(pipeline.id)).stages), [
    ['Qualified', 25, 'open', 0],
    ['Demo', 40, 'open', 1],
    ['Inbound lead', 10, 'open', 2],
    ['Won', 100, 'won', 3],
    ['Lost', 0, 'lost', 4],
  ]);
  assertNames(
    await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}/stages/${lead.id}`, { ...key(), body: { name: 'demo' } }),
    409,
    '/name',
  );

  // Closing every open stage but one, then the last: refused.
  const stages = (await pipelineOf(pipeline.id)).stages;
  for (const s of stages.filter((s) => s.kind === 'open').slice(1))
    assert.equal((await request(server, 'DELETE', `/v1/pipelines/${pipeline.id}/stages/${s.id}`, key())).status, 204);
  const lastOpen = stages[0]!;
  assertNames(
    await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}/stages/${lastOpen.id}`, { ...key(), body: { kind: 'won' } }),
    409,
    '/kind',
  );
  const deleting = await request(server, 'DELETE', `/v1/pipelines/${pipeline.id}/stages/${lastOpen.id}`, key());
  assert.equal(deleting.status, 409, deleting.text);
  assert.match(deleting.body.detail, /last open stage/);
  assert.equal(
    (await request(server, 'PATCH', `/v1/pipelines/${pipeline.id}/stages/${crypto.randomUUID()}`, { ...key(), body: { name: 'x' } }))
      .status,
    404,
  );
  const otherPipeline = await newPipeline('Elsewhere');
  assert.equal(
    (await request(server, 'PATCH', `/v1/pipelines/${otherPipeline.id}/stages/${lastOpen.id}`, { ...key(), body: { name: 'x' } })).status,
    404,
    'a stage of another pipeline is not found under this one',
  );
});

test('a stage that holds deals is deleted only with move_deals_to, a stage of its pipeline: the deals move, each with its events and history', async () => {
  const pipeline = await newPipeline('Moving');
  const [lead, demo] = pipeline.stages as [Stage, Stage, Stage];
  const a = await created(server, '/v1/deals', { name: 'Move A', pipeline_id: pipeline.id, stage_id: lead.id });
  const b = await created(server, '/v1/deals', { name: 'Move B', pipeline_id: pipeline.id, stage_id: lead.id });
  const elsewhere = await newPipeline('Not here');

  const bare = await request(server, 'DELETE', `/v1/pipelines/${pipeline.id}/stages/${lead.id}`, key());
  assertNames(bare, 400, '/move_deals_to', 'query');
  assert.match(bare.body.detail, /holds 2 deals/);
  assertNames(
    await request(server, 'DELETE', `/v1/pipelines/${pipeline.id}/stages/${lead.id}?move_deals_to=${elsewhere.stages[0]!.id}`, key()),
    400,
    '/move_deals_to',
    'query',
  );
  assertNames(
    await request(server, 'DELETE', `/v1/pipelines/${pipeline.id}/stages/${lead.id}?move_deals_to=${lead.id}`, key()),
    400,
    '/move_deals_to',
    'query',
  );
  assertNames(
    await request(server, 'DELETE', `/v1/pipelines/${pipeline.id}/stages/${lead.id}?move_deals_to=nope`, key()),
    400,
    '/move_deals_to',
    'query',
  );

  const events = await eventTail(server);
  assert.equal(
    (await request(server, 'DELETE', `/v1/pipelines/${pipeline.id}/stages/${lead.id}?move_deals_to=${demo.id}`, key())).status,
    204,
  );
  const org = server.organizationId;
  const moves = await events.take(4);
  const expected = [a, b]
    .sort((x, y) => (x.id < y.id ? -1 : 1))
    .flatMap((d) => [
      { type: 'crm.record.updated', data: { object_kind: 'deal', record_id: d.id, display_name: d.name, organization_id: org } },
      {
        type: 'crm.deal.stage_changed',
        data: { deal_id: d.id, pipeline_id: pipeline.id, from_stage_id: lead.id, to_stage_id: demo.id, organization_id: org },
      },
    ]);
  assert.deepEqual(moves, expected);
  for (const deal of [a, b]) {
    const now = await request(server, 'GET', `/v1/deals/${deal.id}`, key());
    assert.equal(now.body.data.stage_id, demo.id);
    const history = (await request(server, 'GET', `/v1/deals/${deal.id}/stage-history`, key())).body.data;
    assert.deepEqual(
      history.map((h: { stage_name: string; left_at: string | null; changed_by: { type: string } }) => [
        h.stage_name,
        h.left_at === null,
        h.changed_by.type,
      ]),
      [
        ['Lead', false, 'api_key'],
        ['Demo', true, 'api_key'],
      ],
      'the deleted stage keeps its name in the history',
    );
  }
  assert.deepEqual(
    (await pipelineOf(pipeline.id)).stages.map((s) => [s.name, s.position]),
    [
      ['Demo', 0],
      ['Won', 1],
    ],
  );
  assert.equal((await request(server, 'DELETE', `/v1/pipelines/${pipeline.id}/stages/${lead.id}`, key())).status, 404, 'gone');
});

test('the default moves to another pipeline only by that one becoming it; the default is not deleted; a pipeline with deals needs a target in another pipeline', async () => {
  const list = (await request(server, 'GET', '/v1/pipelines?limit=200', key())).body.data as Array<{ id: string; is_default: boolean }>;
  const original = list.find((p) => p.is_default)!;
  assertNames(
    await request(server, 'PATCH', `/v1/pipelines/${original.id}`, { ...key(), body: { is_default: false } }),
    400,
    '/is_default',
  );
  const deleting = await request(server, 'DELETE', `/v1/pipelines/${original.id}`, key());
  assert.equal(deleting.status, 409, deleting.text);

  const next = await created(server, '/v1/pipelines', {
    name: 'New default',
    is_default: true,
    stages: [{ name: 'Only', probability: 50 }],
  });
  assert.equal(next.is_default, true);
  assert.equal((await pipelineOf(original.id)).is_default, false, 'one default per organization');
  const deal = await created(server, '/v1/deals', { name: 'Goes to the default' });
  assert.equal(deal.pipeline_id, next.id, 'a deal naming no pipeline goes to the default');
  assert.equal((await request(server, 'PATCH', `/v1/pipelines/${original.id}`, { ...key(), body: { is_default: true } })).status, 200);
  assert.equal((await pipelineOf(next.id)).is_default, false);

  // next holds a deal: deleting it needs a stage of another pipeline.
  assertNames(await request(server, 'DELETE', `/v1/pipelines/${next.id}`, key()), 400, '/move_deals_to', 'query');
  assertNames(
    await request(server, 'DELETE', `/v1/pipelines/${next.id}?move_deals_to=${next.stages[0].id}`, key()),
    400,
    '/move_deals_to',
    'query',
  );
  const target = (await pipelineOf(original.id)).stages[1]!;
  const events = await eventTail(server);
  assert.equal((await request(server, 'DELETE', `/v1/pipelines/${next.id}?move_deals_to=${target.id}`, key())).status, 204);
  assert.deepEqual(
    (await events.take(2)).map((e) => [e.type, e.data.pipeline_id ?? null, e.data.from_stage_id ?? null, e.data.to_stage_id ?? null]),
    [
      ['crm.record.updated', null, null, null],
      ['crm.deal.stage_changed', original.id, next.stages[0].id, target.id],
    ],
  );
  const moved = (await request(server, 'GET', `/v1/deals/${deal.id}`, key())).body.data;
  assert.deepEqual([moved.pipeline_id, moved.stage_id], [original.id, target.id]);
  assert.equal((await request(server, 'GET', `/v1/pipelines/${next.id}`, key())).status, 404);
  const empty = await newPipeline('Empty');
  assert.equal(
    (await request(server, 'DELETE', `/v1/pipelines/${empty.id}`, key())).status,
    204,
    'an empty pipeline goes without a target',
  );
});

test('the pipelines routes need crm:read or crm:write', async () => {
  const pipeline = await newPipeline('Guarded');
  const stage = pipeline.stages[0]!;
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/pipelines', body: { name: 'X', stages: [{ name: 'A', probability: 1 }] }, permission: 'crm:write' },
    { method: 'GET', path: '/v1/pipelines', permission: 'crm:read' },
    { method: 'GET', path: `/v1/pipelines/${pipeline.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/pipelines/${pipeline.id}`, body: { name: 'Y' }, permission: 'crm:write' },
    { method: 'DELETE', path: `/v1/pipelines/${pipeline.id}`, permission: 'crm:write' },
    { method: 'POST', path: `/v1/pipelines/${pipeline.id}/stages`, body: { name: 'B', probability: 1 }, permission: 'crm:write' },
    { method: 'PATCH', path: `/v1/pipelines/${pipeline.id}/stages/${stage.id}`, body: { name: 'C' }, permission: 'crm:write' },
    { method: 'DELETE', path: `/v1/pipelines/${pipeline.id}/stages/${stage.id}`, permission: 'crm:write' },
    { method: 'GET', path: `/v1/pipelines/${pipeline.id}/board`, permission: 'crm:read' },
    { method: 'GET', path: `/v1/pipelines/${pipeline.id}/stages/${stage.id}/deals`, permission: 'crm:read' },
  ]);
});
