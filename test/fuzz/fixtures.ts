/**
 * Real resources for the fuzzer's path ids, and the server it runs against: the worker on (pairing,
 * sends), private targets allowed (its URLs all point at a closed loopback port), the official API
 * pointed there too so no request can leave for the provider's real host.
 */
import assert from 'node:assert/strict';
import { freePort, loginCookie, request, startTestServer, createKeyWith, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { approvedTemplate, customerWrites, officialChannel, pairedGatewayChannel } from '../messages-helpers.ts';
import { authorizeQuery, createGrant, createOAuthClient } from '../oauth-client-fixture.ts';
import type { Fixtures } from './contract.ts';

export async function startFuzzServer(closedPort: number, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({
    worker: true,
    env: {
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      OFFICIAL_API_BASE: `http://127.0.0.1:${closedPort}`,
      WEBHOOK_TIMEOUT_MS: '1000',
      SANDBOX_STATUS_DELAY_MS: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
}

/** A loopback port that was free a moment ago and that nothing listens on. */
export const closedLoopbackPort = freePort;

export async function createFixtures(server: TestServer, closedPort: number): Promise<Fixtures> {
  const key = server.apiKey;
  const ok = (res: { status: number; text: string }, what: string) => assert.ok(res.status < 300, `${what}: ${res.status} ${res.text}`);
  const gateway = await pairedGatewayChannel(server, 'Fuzz gateway');
  const official = await officialChannel(server, 'Fuzz official');
  // Groups of the gateway's number for the group routes' path ids (the fuzzer may leave one: there are two).
  const groups: string[] = [];
  for (const subject of ['Fuzz group', 'Fuzz group 2']) {
    const made = await request(server, 'POST', `/v1/channels/${gateway.id}/groups`, {
      key,
      body: { subject, participants: ['+4915112345001'] },
    });
    ok(made, 'group');
    groups.push(made.body.data.id);
  }
  // Business labels of the gateway's number, one on a contact's chat (the fuzzer may delete one: there are two).
  const chatLabels: string[] = [];
  for (const name of ['Fuzz label', 'Fuzz label 2']) {
    const made = await request(server, 'POST', `/v1/channels/${gateway.id}/labels`, { key, body: { name } });
    ok(made, 'label');
    chatLabels.push(made.body.data.id);
  }
  ok(
    await request(server, 'POST', `/v1/channels/${gateway.id}/labels/${chatLabels[0]}/chats`, { key, body: { chat: '+4915112345001' } }),
    'labelled chat',
  );
  const contacts: string[] = [];
  const phones = ['+4915112345001', '+4915112345002'];
  for (const [i, phone] of phones.entries()) {
    const res = await request(server, 'POST', '/v1/contacts', {
      key,
      body: { phone_number: phone, name: `Fuzz contact ${i}`, email: `fuzz${i}@example.com` },
    });
    ok(res, 'contact');
    contacts.push(res.body.data.id);
  }
  const note = await request(server, 'POST', `/v1/contacts/${contacts[0]}/notes`, { key, body: { body: 'a note' } });
  ok(note, 'note');
  ok(await request(server, 'POST', `/v1/contacts/${contacts[0]}/tags`, { key, body: { tag: 'vip' } }), 'tag');
  const template = await request(server, 'POST', '/v1/templates', {
    key,
    body: {
      channel_id: official.id,
      name: 'fuzz_template',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    },
  });
  ok(template, 'template');
  // Broadcasts (drafts) with a template approved for them, and drafts the fuzzer may delete.
  await approvedTemplate(server, official.id, 'fuzz_broadcast');
  const broadcastOf = async (name: string) => {
    const res = await request(server, 'POST', '/v1/broadcasts', {
      key,
      body: {
        name,
        channel_id: official.id,
        template: { name: 'fuzz_broadcast', language: 'en_US', variables: ['{{contact.name|there}}'] },
        audience: { phones: ['+4915112345001', '+4915112345002'] },
      },
    });
    ok(res, 'broadcast');
    return res.body.data.id as string;
  };
  const broadcasts = [await broadcastOf('Fuzz broadcast'), await broadcastOf('Fuzz broadcast 2')];
  const doomedBroadcasts = [await broadcastOf('Fuzz doomed broadcast 0'), await broadcastOf('Fuzz doomed broadcast 1')];
  const sent = await request(server, 'POST', '/v1/messages', {
    key,
    body: { channel_id: gateway.id, to: phones[0], type: 'text', content: { body: 'hello' } },
  });
  ok(sent, 'message');
  const endpoint = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
    key,
    body: { url: `http://127.0.0.1:${closedPort}/hook` },
  });
  ok(endpoint, 'webhook endpoint');
  const deliveries = await eventually('a webhook delivery', async () => {
    const res = await request(server, 'GET', '/v1/settings/developer/webhooks/deliveries', { key });
    return res.body?.data?.length > 0 ? (res.body.data as Array<{ id?: string; message_id?: string }>) : undefined;
  });
  const message = await request(server, 'GET', `/v1/messages/${sent.body.data.id}`, { key });
  // A customer's message on the official channel: what POST /v1/messages/{id}/typing answers.
  const inbound = await customerWrites(server, official.id, phones[1]!);
  // Calls ringing on the gateway channel (POST …/calls/{callID}/reject rejects one; the rest answer 409).
  const calls: string[] = [];
  for (let i = 0; i < 3; i++) {
    const ringing = await request(server, 'POST', '/sandbox/call', { key, body: { channel_id: gateway.id, from: phones[i % 2] } });
    ok(ringing, 'call');
    calls.push(ringing.body.call_id);
  }
  await eventually('the calls recorded', async () => {
    const res = await request(server, 'GET', `/v1/messages?channel_id=${gateway.id}&direction=inbound`, { key });
    return (res.body.data as Array<{ type: string }>).filter((m) => m.type === 'call').length === calls.length ? true : undefined;
  });
  // Resources made to be deleted (or disconnected) by the fuzzer.
  const deletable: Record<string, string[]> = {
    'deletable:channel': [],
    'deletable:contact': [],
    'deletable:endpoint': [],
    'deletable:note': [],
    'deletable:tag': ['vip'],
    'deletable:channel_scope': [],
  };
  for (let i = 0; i < 3; i++) {
    const channel = await request(server, 'POST', '/v1/channels', {
      key,
      body: { platform: 'chatapp_unofficial', name: `Fuzz doomed ${i}`, sandbox: true },
    });
    ok(channel, 'doomed channel');
    deletable['deletable:channel']!.push(channel.body.data.id);
    const contact = await request(server, 'POST', '/v1/contacts', {
      key,
      body: { phone_number: `+49151123450${10 + i}`, name: `Doomed ${i}` },
    });
    ok(contact, 'doomed contact');
    deletable['deletable:contact']!.push(contact.body.data.id);
    const hook = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
      key,
      body: { url: `http://127.0.0.1:${closedPort}/doomed${i}` },
    });
    ok(hook, 'doomed endpoint');
    deletable['deletable:endpoint']!.push(hook.body.data.id);
    const doomedNote = await request(server, 'POST', `/v1/contacts/${contacts[0]}/notes`, { key, body: { body: `doomed ${i}` } });
    ok(doomedNote, 'doomed note');
    deletable['deletable:note']!.push(doomedNote.body.data.id);
  }
  // The CRM: companies, a pipeline of its own beside the default one, deals in both; and what the fuzzer may delete.
  const crm = await crmFixtures(server, { contacts, conversation: message.body.data.conversation_id });
  // A key and sessions the fuzzer may revoke: never its own.
  await createKeyWith(server, ['messages:read']);
  const keys = await request(server, 'GET', '/v1/api-keys', { key });
  const cookie = await loginCookie(server);
  const throwaway = [await loginCookie(server), await loginCookie(server)];
  const sessions = await request(server, 'GET', '/v1/auth/sessions', { cookie: throwaway[0] });
  const own = await request(server, 'GET', '/v1/auth/session', { cookie });
  // OAuth: a client whose redirect URIs are the fuzzer's loopback URLs, and requests and devices waiting for a decision.
  const oauthClient = await createOAuthClient(server, {
    redirectUris: [`http://127.0.0.1:${closedPort}`, `http://127.0.0.1:${closedPort}/hook?x=1`],
  });
  const authorizationRequests: string[] = [];
  const userCodes: string[] = [];
  for (let i = 0; i < 3; i++) {
    const started = await request(server, 'GET', `/v1/oauth/authorize?${authorizeQuery(oauthClient)}`);
    const id = new URL(started.headers.get('location') ?? '').searchParams.get('request');
    assert.ok(id, `authorization request: ${started.status} ${started.text}`);
    authorizationRequests.push(id);
    const device = await request(server, 'POST', '/v1/oauth/device', { body: { client_id: oauthClient.clientId } });
    ok(device, 'device authorization');
    server.registerSensitive('a device code', device.body.device_code);
    userCodes.push(device.body.user_code);
  }
  // Registered clients (a confidential one, whose secret may be rotated), clients and grants the fuzzer may delete.
  const confidential = await request(server, 'POST', '/v1/oauth/clients', {
    key,
    body: {
      name: 'Fuzz backend',
      type: 'confidential',
      redirect_uris: [`http://127.0.0.1:${closedPort}/cb`],
      grant_types: ['authorization_code', 'refresh_token'],
      scopes: ['channels:read'],
    },
  });
  ok(confidential, 'confidential OAuth client');
  const doomedClients: string[] = [];
  const doomedGrants: string[] = [];
  for (let i = 0; i < 3; i++) {
    const doomed = await createOAuthClient(server, { name: `Fuzz doomed client ${i}` });
    doomedClients.push(doomed.clientId);
    doomedGrants.push(
      (await createGrant(server, { client: oauthClient, userId: own.body.data.user.id, organizationIds: [server.organizationId] })).id,
    );
  }
  // Organizations: members and invitations the fuzzer may change or remove (never the owner it acts as).
  const members: string[] = [];
  const invitations: string[] = [];
  for (let i = 0; i < 3; i++) {
    const joining = await request(server, 'POST', `/v1/organizations/${server.organizationId}/invitations`, {
      key,
      body: { email: `fuzz-member${i}@example.com`, role: 'member' },
    });
    ok(joining, 'invitation');
    const joined = await request(server, 'POST', '/v1/invitations/accept', {
      body: { token: joining.body.data.token, name: `Fuzz member ${i}`, password: 'fuzz member password' },
    });
    ok(joined, 'accepted invitation');
    members.push(joined.body.data.user_id);
    const pending = await request(server, 'POST', `/v1/organizations/${server.organizationId}/invitations`, {
      key,
      body: { email: `fuzz-invitee${i}@example.com`, role: 'member' },
    });
    ok(pending, 'pending invitation');
    invitations.push(pending.body.data.id);
  }
  // Canned responses: two that stay, and ones a DELETE may take.
  const canned: string[] = [];
  for (const [i, shortcut] of ['fuzz-hours', 'fuzz-refund', 'fuzz-doomed-1', 'fuzz-doomed-2'].entries()) {
    const made = await request(server, 'POST', '/v1/canned-responses', {
      key,
      body: { name: `Fuzz canned ${i}`, shortcut, body: 'Hi {{contact.first_name|there}}, thanks for writing.' },
    });
    ok(made, 'canned response');
    canned.push(made.body.data.id);
  }
  // Teams: two that stay (with the members), and ones a DELETE may take.
  const teamIds: string[] = [];
  for (const name of ['Fuzz support', 'Fuzz sales', 'Fuzz doomed team 1', 'Fuzz doomed team 2']) {
    const made = await request(server, 'POST', '/v1/teams', {
      key,
      body: { name, assignment_policy: 'round_robin', default_capacity: 3, members: members.map((user_id) => ({ user_id })) },
    });
    ok(made, 'team');
    teamIds.push(made.body.data.id);
  }
  // Bots (disabled: they take no conversation until the fuzzer enables one): two that stay, ones a DELETE may take.
  const bots: string[] = [];
  for (const name of ['Fuzz bot', 'Fuzz bot 2', 'Fuzz doomed bot 1', 'Fuzz doomed bot 2']) {
    const made = await request(server, 'POST', '/v1/bots', {
      key,
      body: {
        name,
        url: `http://127.0.0.1:${closedPort}/bot`,
        trigger: { type: 'keyword', operator: 'equals', keywords: ['fuzz'] },
        enabled: false,
      },
    });
    ok(made, 'bot');
    bots.push(made.body.data.id);
  }
  // Conversation labels (two that stay, on the conversation; ones a DELETE may take) and private notes in the conversation.
  const conversationLabels: string[] = [];
  for (const name of ['Fuzz billing', 'Fuzz vip', 'Fuzz doomed 1', 'Fuzz doomed 2']) {
    const made = await request(server, 'POST', '/v1/conversation-labels', { key, body: { name, color: '#1f6feb' } });
    ok(made, 'conversation label');
    conversationLabels.push(made.body.data.id);
  }
  const conversationNotes: string[] = [];
  const conversationId = message.body.data.conversation_id as string;
  ok(
    await request(server, 'POST', `/v1/conversations/${conversationId}/labels`, {
      key,
      body: { label_ids: conversationLabels.slice(0, 2) },
    }),
    'conversation labelled',
  );
  for (const body of ['Fuzz note', 'Fuzz doomed note 1', 'Fuzz doomed note 2']) {
    const made = await request(server, 'POST', `/v1/conversations/${conversationId}/notes`, {
      key,
      body: { body, mentions: members.slice(0, 1) },
    });
    ok(made, 'conversation note');
    conversationNotes.push(made.body.data.id);
  }
  // Automation rules (disabled: the fuzzer's messages set none off): two that stay, and ones a DELETE may take.
  const automations: string[] = [];
  for (const name of ['Fuzz rule', 'Fuzz rule 2', 'Fuzz doomed rule 1', 'Fuzz doomed rule 2']) {
    const made = await request(server, 'POST', '/v1/automations', {
      key,
      body: {
        name,
        enabled: false,
        trigger: { type: 'message_received' },
        conditions: [{ kind: 'message', op: 'contains', value: 'refund' }],
        actions: [{ type: 'add_label', label_id: conversationLabels[0] }],
      },
    });
    ok(made, 'automation rule');
    automations.push(made.body.data.id);
  }
  return {
    apiKey: key,
    cookie,
    throwawayCookies: throwaway,
    ids: {
      ...deletable,
      channel: [gateway.id, official.id],
      group: groups,
      chatlabel: chatLabels,
      cannedresponse: canned.slice(0, 2),
      'deletable:cannedresponse': canned.slice(2),
      automation: automations.slice(0, 2),
      'deletable:automation': automations.slice(2),
      team: teamIds.slice(0, 2),
      'deletable:team': teamIds.slice(2),
      bot: bots.slice(0, 2),
      'deletable:bot': bots.slice(2),
      conversationlabel: conversationLabels.slice(0, 2),
      'deletable:conversationlabel': conversationLabels.slice(2),
      conversationnote: conversationNotes.slice(0, 1),
      'deletable:conversationnote': conversationNotes.slice(1),
      // The gateway channel's chats (the calls above made them): the chat routes' chatID and a label's chat; one of them may be deleted.
      chat: [...phones, groups[0]!],
      'deletable:chat': [phones[1]!],
      contact: contacts,
      // POST /v1/contacts/{contactID}/merge deletes its duplicate_id: only a doomed contact, never a fixture.
      duplicate: deletable['deletable:contact']!,
      note: [note.body.data.id],
      tag: ['vip'],
      phone: phones,
      call: calls,
      template: [template.body.data.id],
      broadcast: broadcasts,
      'deletable:broadcast': doomedBroadcasts,
      message: [sent.body.data.id, inbound, ...deliveries.map((d) => d.message_id ?? d.id ?? '').filter(Boolean)],
      conversation: [message.body.data.conversation_id].filter(Boolean),
      endpoint: [endpoint.body.data.id],
      key: (keys.body.data as Array<{ id: string; name: string }>).filter((k) => k.name.startsWith('limited')).map((k) => k.id),
      session: (sessions.body.data as Array<{ id: string }>).map((s) => s.id).filter((id) => id !== own.body.data.session.id),
      client: [oauthClient.clientId, confidential.body.data.client_id],
      'deletable:client': doomedClients,
      grant: doomedGrants,
      'deletable:grant': doomedGrants,
      request: authorizationRequests,
      user_code: userCodes,
      organization_ids: [server.organizationId],
      organization: [server.organizationId],
      user: members,
      // GET /v1/conversations?assignee=: a member's id (the schema's enum gives me and none).
      assignee: members,
      invitation: invitations,
      'deletable:user': members,
      'deletable:invitation': invitations,
      ...crm,
      // owner_user_id: the owner, or a member.
      owner_user: [own.body.data.user.id, ...members],
    },
  };
}

/**
 * Companies, pipelines, stages, deals, tasks, relationship labels and links, and comments for the CRM
 * routes' ids (contact_ids, move_deals_to, a link's ends, a record), and doomed ones to delete.
 */
async function crmFixtures(
  server: TestServer,
  refs: { contacts: string[]; conversation: string | undefined },
): Promise<Record<string, string[]>> {
  const key = server.apiKey;
  const made = async (path: string, body: unknown) => {
    const res = await request(server, 'POST', path, { key, body });
    assert.equal(res.status, 201, `${path}: ${res.text}`);
    return res.body.data as Record<string, any>;
  };
  const company = await made('/v1/companies', { name: 'Fuzz company', domain: 'fuzz-company.example' });
  const pipelines = (await request(server, 'GET', '/v1/pipelines', { key })).body.data as Array<Record<string, any>>;
  const own = await made('/v1/pipelines', {
    name: 'Fuzz pipeline',
    stages: [
      { name: 'One', probability: 10 },
      { name: 'Two', probability: 50 },
      { name: 'Won', probability: 100, kind: 'won' },
      { name: 'Lost', probability: 0, kind: 'lost' },
    ],
  });
  const all = [...pipelines, own];
  const stages = all.flatMap((p) => (p.stages as Array<{ id: string }>).map((s) => s.id));
  const deals: string[] = [];
  for (const [i, pipeline] of all.entries()) {
    const deal = await made('/v1/deals', {
      name: `Fuzz deal ${i}`,
      amount: 1000 * (i + 1),
      currency: 'EUR',
      pipeline_id: pipeline.id,
      company_id: company.id,
      contact_ids: refs.contacts.slice(0, 1),
      conversation_id: refs.conversation,
    });
    deals.push(deal.id);
  }
  const contact = refs.contacts[0]!;
  const tasks: string[] = [];
  for (const [i, targets] of [
    [
      { kind: 'deal', id: deals[0] },
      { kind: 'contact', id: contact },
    ],
    [{ kind: 'company', id: company.id }, ...(refs.conversation ? [{ kind: 'conversation', id: refs.conversation }] : [])],
  ].entries())
    tasks.push((await made('/v1/tasks', { title: `Fuzz task ${i}`, due_at: '2031-01-01T09:00:00Z', targets })).id);
  const label = await made('/v1/relationship-labels', {
    name: 'works at',
    inverse_name: 'employs',
    from_kind: 'contact',
    to_kind: 'company',
  });
  const relationship = await made('/v1/relationships', { label_id: label.id, from_id: contact, to_id: company.id });
  const comment = await made('/v1/comments', { record: { kind: 'deal', id: deals[0] }, body: 'a comment' });
  // Orders: one placed in the conversation, one by the API alone; their states may be moved by the fuzzer.
  const orders: string[] = [];
  for (const [i, extra] of [{ contact_id: contact, conversation_id: refs.conversation }, {}].entries())
    orders.push(
      (
        await made('/v1/orders', {
          currency: 'EUR',
          items: [{ product_retailer_id: `fuzz-sku-${i}`, quantity: i + 1, unit_amount: 250 }],
          ...extra,
        })
      ).id,
    );
  const doomed: Record<'company' | 'deal' | 'pipeline' | 'stage' | 'task' | 'label' | 'relationship' | 'comment', string[]> = {
    company: [],
    deal: [],
    pipeline: [],
    stage: [],
    task: [],
    label: [],
    relationship: [],
    comment: [],
  };
  for (let i = 0; i < 3; i++) {
    doomed.company.push((await made('/v1/companies', { name: `Fuzz doomed company ${i}` })).id);
    doomed.deal.push((await made('/v1/deals', { name: `Fuzz doomed deal ${i}`, pipeline_id: own.id })).id);
    doomed.pipeline.push(
      (await made('/v1/pipelines', { name: `Fuzz doomed pipeline ${i}`, stages: [{ name: 'Only', probability: 10 }] })).id,
    );
    doomed.stage.push((await made(`/v1/pipelines/${own.id}/stages`, { name: `Doomed ${i}`, probability: 20 })).id);
    doomed.task.push((await made('/v1/tasks', { title: `Fuzz doomed task ${i}` })).id);
    const doomedLabel = await made('/v1/relationship-labels', { name: `doomed ${i}`, from_kind: 'company', to_kind: 'deal' });
    doomed.label.push(doomedLabel.id);
    doomed.relationship.push(
      (await made('/v1/relationships', { label_id: label.id, from_id: refs.contacts[1]!, to_id: doomed.company[i] })).id,
    );
    doomed.comment.push((await made('/v1/comments', { record: { kind: 'company', id: company.id }, body: `doomed ${i}` })).id);
  }
  // Lists (of contacts, holding them; of companies) and a segment, and what the fuzzer may delete.
  const contactList = await made('/v1/lists', { name: 'Fuzz contacts', kind: 'contact' });
  const companyList = await made('/v1/lists', { name: 'Fuzz companies', kind: 'company' });
  const entries = await request(server, 'POST', `/v1/lists/${contactList.id}/entries`, { key, body: { record_ids: refs.contacts } });
  assert.equal(entries.status, 200, entries.text);
  const segment = await made('/v1/segments', {
    name: 'Fuzz segment',
    filter: {
      or: [
        { field: 'lists', op: 'in', value: contactList.id },
        { field: 'tags', op: 'has', value: 'vip' },
      ],
    },
  });
  const doomedLists: string[] = [];
  const doomedSegments: string[] = [];
  for (let i = 0; i < 3; i++) {
    doomedLists.push((await made('/v1/lists', { name: `Fuzz doomed list ${i}`, kind: 'deal' })).id);
    doomedSegments.push(
      (await made('/v1/segments', { name: `Fuzz doomed segment ${i}`, filter: { and: [{ field: 'name', op: 'exists', value: true }] } }))
        .id,
    );
  }
  return {
    list: [contactList.id, companyList.id],
    segment: [segment.id],
    record_ids: [...refs.contacts, company.id],
    'deletable:list': doomedLists,
    'deletable:segment': doomedSegments,
    company: [company.id],
    pipeline: all.map((p) => p.id),
    stage: stages,
    move_deals_to: stages,
    deal: deals,
    contact_ids: refs.contacts,
    'deletable:company': doomed.company,
    'deletable:deal': doomed.deal,
    'deletable:pipeline': doomed.pipeline,
    'deletable:stage': doomed.stage,
    task: tasks,
    label: [label.id],
    relationship: [relationship.id],
    comment: [comment.id],
    order: orders,
    // A link's ends (from_id, to_id), a reference's id (task targets, a comment's record), a list's record.
    from: refs.contacts,
    to: [company.id],
    '': [deals[0]!, contact, company.id],
    record: [`deal:${deals[0]}`, `contact:${contact}`, `company:${company.id}`],
    'deletable:task': doomed.task,
    'deletable:label': doomed.label,
    'deletable:relationship': doomed.relationship,
    'deletable:comment': doomed.comment,
  };
}
