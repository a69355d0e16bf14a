/**
 * Accepting a message for sending: validated without the database, then written by one
 * statement that also checks everything the database knows (the channel as cached, the
 * conversation, the 24-hour window, the CRM's consent and suppressions). Concurrent accepts are
 * written together: while statements are in flight, new accepts wait and go in the next one, many
 * messages to one statement and one commit (group commit). A refusal of one message writes nothing
 * for it and does not touch the others.
 */
import { isUniqueViolation } from '../../db/errors.ts';
import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Database, Db, Executor } from '../../db/client.ts';
import { idempotencyKeys, messages } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { createBatcher } from '../../lib/batcher.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { assertSafeTargetSyntax, UnsafeTargetError, type TargetPolicy } from '../../lib/safe-fetch.ts';
import { normalizePhone, phoneDigits } from '../../lib/phone.ts';
import { GROUP_RECIPIENT } from '../../providers/capabilities.ts';
import type { Platform } from '../../providers/provider.ts';
import type { Actor } from '../actor.ts';
import { isHuman, pauseBotsForReply } from '../bots/sessions.ts';
import { assertMessageType, assertSendable, capabilitiesOf, supportsOperation, type MessageType } from '../channels/capabilities.ts';
import { loadChannel } from '../channels/channels.ts';
import { DomainError, invalid } from '../errors.ts';
import { parameterMismatch, type ParameterMismatch, type TemplateParameterCache } from '../templates/parameters.ts';
import { marketingOptOutRefusal } from '../contacts/policy.ts';
import { parseContent, previewOf } from './content.ts';
import { mediaIdsOf, mediaOf } from './media.ts';
import { firstStatus, type MessageRow } from './messages.ts';
import { batchRows } from '../../db/batch-rows.ts';

/** The inputs of the CRM's refusal query, as SQL: parameters, or columns of an outer query it is joined to. */
export type RefusalInputs = { organizationId: SQL; phone: SQL; digits: SQL; channelId: SQL; at: SQL };

/**
 * The CRM's rules on sending (consent, suppression), as a query the accepting statement joins to
 * each message: it yields at most one row, the decisive refusal, which explain() puts in words.
 */
export type SendPolicy = {
  refusalQuery(inputs: RefusalInputs): SQL;
  explain(row: never, isTemplate: boolean): { code: string; reason: string };
};

export type MessageDeps = {
  db: Db;
  clock: Clock;
  /** Channels as the accepting process last saw them; every accept checks the row still says so. */
  channels: ChannelCache;
  /** Writes accepted messages, many to a statement (createAcceptWriter). */
  writer: AcceptWriter;
  /** Approved templates' parameter counts, which a template message must match. */
  templates: TemplateParameterCache;
  /** Consent and suppression rules of the CRM; absent means no rule refuses. */
  sendPolicy?: SendPolicy;
  /** Where media URLs may point (the current config's rule; absent: public https only). */
  targets?: TargetPolicy;
  /**
   * Called after a message is accepted: wakes this process's dispatcher, or, in a process without
   * one, the dispatchers of the others (by a NOTIFY that many accepts share, outside their statements).
   */
  wakeDispatch(): void;
};

export type SendInput = {
  channelId: string;
  to: string;
  conversationId?: string;
  type: MessageType;
  content: unknown;
  idempotency?: { key: string; requestHash: string };
  /** The broadcast sending it (domain/broadcasts), recorded on the message. */
  broadcastId?: string;
};

export const IDEMPOTENCY_HOURS = 24;

// ---------------------------------------------------------------------------------------------
// Channels

type ChannelRow = Awaited<ReturnType<typeof loadChannel>>;

/**
 * The channels an accepting process has loaded, by id; a hint that each accept checks. Only
 * connected channels are kept: the accepting statement re-checks a cached row, but a refusal for a
 * channel that is not connected is answered before it, and the channel may be connected meanwhile by
 * another process (pairing ends in a worker), which this one would not hear of.
 */
export type ChannelCache = {
  get(db: Executor, actor: Actor, channelId: string): Promise<ChannelRow>;
  forget(channelId: string): void;
};

export function createChannelCache(options: { ttlMs: number; maxEntries?: number; now(): Date }): ChannelCache {
  const cache = new Map<string, { row: ChannelRow; at: number }>();
  return {
    async get(db, actor, channelId) {
      const hit = cache.get(channelId);
      if (hit && hit.row.organizationId === actor.organizationId && options.now().getTime() - hit.at < options.ttlMs) return hit.row;
      const row = await loadChannel(db, actor, channelId);
      if (row.status !== 'connected') {
        cache.delete(channelId);
        return row;
      }
      if (cache.size >= (options.maxEntries ?? 10_000)) cache.clear();
      cache.set(channelId, { row, at: options.now().getTime() });
      return row;
    },
    forget(channelId) {
      cache.delete(channelId);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The statement

/** One message as the accepting statement takes it (a row of its JSON input). */
type AcceptItem = {
  id: string;
  history_id: string;
  new_conversation_id: string;
  organization_id: string;
  channel_id: string;
  /** The channel's fields as acceptMessage used them: the statement checks they are still so. */
  channel_status: string;
  sandbox: boolean;
  platform: string;
  display: string | null;
  /** The recipient: digits, and E.164 with `+`. */
  peer: string;
  phone: string;
  given_conversation_id: string | null;
  type: string;
  content: Record<string, unknown>;
  preview: string;
  at: string;
  /** The start of the customer-service window to check, or null when none applies. */
  window_since: string | null;
  check_policy: boolean;
  from_phone: string | null;
  idem_key: string | null;
  idem_hash: string | null;
  broadcast_id: string | null;
};

/** Why the statement wrote nothing for a message. */
type Refusal = 'channel_changed' | 'conversation_not_found' | 'conversation_mismatch' | 'window_closed' | 'policy';

type AcceptResult = {
  refusal: Refusal | null;
  policy: Record<string, unknown> | null;
  last_inbound_at: string | Date | null;
  message_id: string | null;
  conversation_id: string | null;
  contact_id: string | null;
};

/**
 * The accepting statement, for any number of messages (`n` numbers them). Its parts run as one
 * snapshot: `checked` decides for each message, and every write is conditional on it. A
 * conversation's last message only moves forward in time (two statements may commit out of order). A new
 * conversation is inserted with its message's preview (a part cannot see another part's writes);
 * when a concurrent request inserted it first, nothing is written for that message, which the caller
 * then accepts again. A live Idempotency-Key row with the same key makes the whole statement fail,
 * so messages with a key are written alone.
 */
function acceptStatement(policy: SendPolicy | undefined): SQL {
  const refusals = policy
    ? policy.refusalQuery({
        organizationId: sql.raw('i.organization_id'),
        phone: sql.raw('i.phone'),
        digits: sql.raw('i.peer'),
        channelId: sql.raw('i.channel_id::text'),
        at: sql.raw('i.at'),
      })
    : sql`select null as kind where false`;
  return sql`with
    items as (
      select * from ${batchRows(
        sql.placeholder('items'),
        'i',
        `n int, id uuid, history_id uuid, new_conversation_id uuid, organization_id uuid, channel_id uuid,
         channel_status text, sandbox boolean, platform text, display text, peer text, phone text,
         given_conversation_id uuid, type text, content jsonb, preview text, at timestamptz,
         window_since timestamptz, check_policy boolean, from_phone text, idem_key text, idem_hash text, broadcast_id uuid`,
        'jsonb',
      )}
    ),
    checked as (
      select i.*, coalesce(g.id, f.id) as found_id, coalesce(g.contact_id, f.contact_id) as found_contact_id,
             coalesce(g.last_inbound_at, f.last_inbound_at) as last_inbound_at, to_jsonb(p) as policy,
        case
          when not exists (select 1 from channels c
                            where c.id = i.channel_id and c.organization_id = i.organization_id and c.status = i.channel_status
                              and c.sandbox = i.sandbox and c.platform = i.platform
                              and c.display_phone_number is not distinct from i.display) then 'channel_changed'
          when i.given_conversation_id is not null and g.id is null then 'conversation_not_found'
          when i.given_conversation_id is not null and (g.channel_id <> i.channel_id or g.peer_phone <> i.peer) then 'conversation_mismatch'
          when i.window_since is not null
               and coalesce(g.last_inbound_at, f.last_inbound_at, '-infinity'::timestamptz) < i.window_since then 'window_closed'
          when i.check_policy and p.kind is not null then 'policy'
        end as refusal
        from items i
        left join conversations f on i.given_conversation_id is null and f.channel_id = i.channel_id and f.peer_phone = i.peer
        left join conversations g on g.id = i.given_conversation_id and g.organization_id = i.organization_id
        left join lateral (${refusals}) p on true
    ),
    created as (
      insert into conversations (id, organization_id, channel_id, peer_phone, status, last_message_at, last_message_preview, created_at, updated_at)
      select distinct on (channel_id, peer) new_conversation_id, organization_id, channel_id, peer, 'open', at, preview, at, at
        from checked where refusal is null and found_id is null
       order by channel_id, peer, n desc
      on conflict (channel_id, peer_phone) do nothing
      returning id, contact_id, channel_id, peer_phone
    ),
    placed as (
      select c.*, coalesce(c.found_id, cr.id) as conversation_id, coalesce(c.found_contact_id, cr.contact_id) as contact_id
        from checked c
        left join created cr on c.found_id is null and cr.channel_id = c.channel_id and cr.peer_phone = c.peer
       where c.refusal is null
    ),
    message as (
      insert into messages (id, organization_id, channel_id, conversation_id, contact_id, direction, to_phone, from_phone, type, content, status, dispatch_at, broadcast_id, status_history, created_at, updated_at)
      select id, organization_id, channel_id, conversation_id, contact_id, 'outbound', peer, from_phone, type, content, 'queued', at, broadcast_id,
             -- Its first status, in its row (messages.status_history).
             jsonb_build_array(jsonb_build_object('id', history_id, 'status', 'queued', 'error_code', null, 'error_title', null,
               'pricing', null, 'conversation', null, 'occurred_at', at, 'created_at', at)),
             at, at
        from placed where conversation_id is not null
      returning id, conversation_id, contact_id
    ),
    touched as (
      update conversations
         set last_message_at = greatest(conversations.last_message_at, t.at),
             last_message_preview = case when conversations.last_message_at > t.at then conversations.last_message_preview else t.preview end,
             updated_at = greatest(conversations.updated_at, t.at)
        from (select distinct on (found_id) found_id, at, preview from placed where found_id is not null order by found_id, at desc, n desc) t
       where conversations.id = t.found_id
    ),
    remembered as (
      insert into idempotency_keys (organization_id, key, request_hash, message_id, created_at)
      select p.organization_id, p.idem_key, p.idem_hash, m.id, p.at
        from placed p join message m on m.id = p.id
       where p.idem_key is not null
    )
    select c.n, c.refusal, c.policy, c.last_inbound_at, m.id as message_id, m.conversation_id, m.contact_id
      from checked c left join message m on m.id = c.id
     order by c.n`;
}

// ---------------------------------------------------------------------------------------------
// Group commit

export type AcceptWriter = { write(item: AcceptItem): Promise<AcceptResult> };

/**
 * Writes accepted messages with at most `maxInFlight` statements at a time: an accept that arrives
 * while they are busy waits for the next statement, which takes everything waiting (up to
 * `maxBatch`). At low load every accept goes at once, alone. A message with an Idempotency-Key is
 * written alone (its key may fail the statement). When a statement of several fails, each of its
 * messages is written again alone, so one bad message fails only itself.
 */
export function createAcceptWriter(
  database: Pick<Database, 'queryPrepared'>,
  options: { maxInFlight: number; maxBatch: number; policy: SendPolicy | undefined },
): AcceptWriter {
  // The statement's text depends only on whether a CRM policy is joined: one name per writer.
  const name = options.policy ? 'parley_accept_policy' : 'parley_accept_open';
  // Built once; each statement fills in its messages (the items, as one JSON parameter).
  const statement = acceptStatement(options.policy);
  const write = createBatcher(
    async (items: AcceptItem[]) => {
      const rows = await database.queryPrepared<AcceptResult & { n: number }>(name, statement, {
        items: JSON.stringify(items.map((item, n) => ({ ...item, n }))),
      });
      const results: AcceptResult[] = [];
      for (const row of rows) results[row.n] = row;
      return results;
    },
    { maxInFlight: options.maxInFlight, maxBatch: options.maxBatch, alone: (item) => item.idem_key !== null, splitOnFailure: true },
  );
  return { write };
}

// ---------------------------------------------------------------------------------------------
// Accepting

/** Why a message was not accepted (input errors, with pointers into the input, are thrown as `invalid`). */
export type SendRefusal =
  | { refusal: 'channel_not_connected'; channelId: string; status: string }
  | { refusal: 'conversation_not_found' }
  | { refusal: 'conversation_mismatch' }
  | { refusal: 'template_mismatch'; template: { name: string; language: string }; mismatch: ParameterMismatch }
  /** `sandbox`: the channel is the sandbox's, whose customers can be played writing first. */
  | { refusal: 'window_closed'; windowHours: number; phone: string; lastInboundAt: Date | null; sandbox: boolean }
  | { refusal: 'send_refused'; code: string; reason: string }
  /** The channel or conversation kept changing while the message was accepted. */
  | { refusal: 'contention' }
  /** The Idempotency-Key was used with another request, or the message it made is gone. */
  | { refusal: 'idempotency_conflict'; cause: 'other_request' | 'message_gone' };

/** The message as accepted (`replayed`: an Idempotency-Key's first answer again), or why not. */
export type SendOutcome = { refusal: null; message: MessageRow; replayed: boolean } | SendRefusal;

/** A message's fields while it is accepted and nothing has been sent. */
const NOTHING_SENT = {
  status: 'queued',
  providerMessageId: null,
  errorCode: null,
  errorTitle: null,
  errorMessage: null,
  errorUserTitle: null,
  errorUserMessage: null,
  attempts: 0,
  lastAttemptAt: null,
  editedAt: null,
  deletedAt: null,
  starred: false,
  pinnedUntil: null,
} as const satisfies Partial<MessageRow>;

/**
 * Accepts a message for sending. After validation (no database), one statement (shared with the
 * accepts that arrive meanwhile) does the rest: it checks the channel is as cached, resolves or
 * creates the conversation, checks the 24-hour window and the CRM's rules, and writes the message
 * (which is its own dispatch job, due now), its first status and the conversation's last message.
 * A refusal writes nothing. Returns the message `queued`.
 */
export async function acceptMessage(deps: MessageDeps, actor: Actor, input: SendInput): Promise<SendOutcome> {
  for (let round = 0; ; round++) {
    const channel = await deps.channels.get(deps.db, actor, input.channelId).catch((err: unknown) => {
      if (err instanceof DomainError && err.code === 'not_found') {
        throw invalid('channel_id is not a channel of this organization', [{ pointer: '/channel_id', message: 'channel not found' }]);
      }
      throw err;
    });
    const platform = channel.platform as Platform;
    assertMessageType(platform, input.type);
    const content = parseContent(input.type, input.content);
    assertSendable(platform, input.type, content);
    assertMediaTargets(input.type, content, deps.targets ?? { allowPrivate: false });
    assertMediaIds(platform, input.type, content);
    const phone = recipientOf(platform, input.to);
    if (channel.status !== 'connected') return { refusal: 'channel_not_connected', channelId: channel.id, status: channel.status };
    if (input.conversationId !== undefined && !isUuid(input.conversationId)) return { refusal: 'conversation_not_found' };
    if (input.type === 'template') {
      const mismatch = await checkTemplate(deps, actor, channel.id, content);
      if (mismatch) return mismatch;
      if (deps.sendPolicy) {
        const template = content.template as { name: string; language: { code: string } };
        const optedOut = await marketingOptOutRefusal(deps.db, actor.organizationId, {
          channelId: channel.id,
          template: { name: template.name, language: template.language.code },
          phone,
          at: deps.clock.now(),
        });
        if (optedOut) return { refusal: 'send_refused', ...optedOut };
      }
    }
    const now = deps.clock.now();
    const to = GROUP_RECIPIENT.test(phone) ? phone : phoneDigits(phone);
    const windowHours = capabilitiesOf(platform).customer_service_window_hours;
    const needsWindow = windowHours !== null && input.type !== 'template' && input.type !== 'mark_as_read';
    // The message as accepted; the statement fills in its conversation (and that one's contact).
    const statusHistory = firstStatus('queued', now, now);
    const accepted: MessageRow = {
      id: uuidv7(),
      organizationId: actor.organizationId,
      channelId: channel.id,
      conversationId: '',
      contactId: null,
      direction: 'outbound',
      toPhone: to,
      fromPhone: channel.displayPhoneNumber ? phoneDigits(channel.displayPhoneNumber) : null,
      type: input.type,
      content,
      ...NOTHING_SENT,
      dispatchAt: now,
      broadcastId: input.broadcastId ?? null,
      statusHistory,
      createdAt: now,
      updatedAt: now,
    };
    const answer = await deps.writer.write({
      id: accepted.id,
      history_id: statusHistory[0]!.id,
      new_conversation_id: uuidv7(),
      organization_id: actor.organizationId,
      channel_id: channel.id,
      channel_status: channel.status,
      sandbox: channel.sandbox,
      platform: channel.platform,
      display: channel.displayPhoneNumber,
      peer: to,
      phone,
      given_conversation_id: input.conversationId ?? null,
      type: input.type,
      content,
      preview: previewOf(input.type, content),
      at: now.toISOString(),
      window_since: needsWindow ? new Date(now.getTime() - windowHours! * 3_600_000).toISOString() : null,
      check_policy: deps.sendPolicy !== undefined && input.type !== 'mark_as_read',
      from_phone: accepted.fromPhone,
      idem_key: input.idempotency?.key ?? null,
      idem_hash: input.idempotency?.requestHash ?? null,
      broadcast_id: input.broadcastId ?? null,
    });
    const refusal = answer.refusal;
    switch (refusal) {
      case null:
        if (answer.message_id !== null) {
          deps.wakeDispatch();
          // A member's own message takes the conversation from its bot (a read receipt or typing does not).
          if (isHuman(actor) && input.type !== 'mark_as_read' && input.type !== 'presence')
            await pauseBotsForReply(deps, actor, answer.conversation_id!);
          return {
            refusal: null,
            message: { ...accepted, conversationId: answer.conversation_id!, contactId: answer.contact_id },
            replayed: false,
          };
        }
        // Nothing refused it, yet nothing was written: another request made its conversation a moment ago.
        break;
      case 'channel_changed':
        break;
      case 'conversation_not_found':
      case 'conversation_mismatch':
        return { refusal };
      case 'window_closed':
        return {
          refusal,
          windowHours: windowHours!,
          phone,
          lastInboundAt: answer.last_inbound_at ? new Date(answer.last_inbound_at) : null,
          sandbox: channel.sandbox,
        };
      case 'policy': {
        const verdict = deps.sendPolicy!.explain(answer.policy as never, input.type === 'template');
        return { refusal: 'send_refused', code: verdict.code, reason: verdict.reason };
      }
      default:
        return refusal satisfies never;
    }
    // The channel changed since it was cached, or the conversation was made meanwhile: look again (a
    // second round is rare, a third rarer still).
    deps.channels.forget(channel.id);
    if (round >= 3) return { refusal: 'contention' };
  }
}

/**
 * The recipient: a phone number in E.164, or a group's id (GROUP_RECIPIENT) where the platform sends to
 * groups; anything else is refused naming `/to`.
 */
function recipientOf(platform: Platform, given: string): string {
  const to = given.trim();
  if (GROUP_RECIPIENT.test(to)) {
    if (supportsOperation(platform, 'groups.send')) return to;
    throw invalid(`to ${JSON.stringify(given)} is a group; ${platform} channels send to phone numbers only`, [
      { pointer: '/to', message: `a group id; ${platform} channels send to phone numbers only` },
    ]);
  }
  const phone = normalizePhone(given);
  if (phone) return phone;
  throw invalid(`to ${JSON.stringify(given)} is not a valid international phone number`, [
    {
      pointer: '/to',
      message: supportsOperation(platform, 'groups.send')
        ? 'not a valid international phone number nor a group id (<digits>@g.us)'
        : 'not a valid international phone number',
    },
  ]);
}

/** A template message's parameters against its approved template, when one is stored (else the provider checks). */
async function checkTemplate(
  deps: MessageDeps,
  actor: Actor,
  channelId: string,
  content: Record<string, unknown>,
): Promise<SendRefusal | undefined> {
  const template = content.template as { name: string; language: { code: string }; components?: unknown[] };
  const ref = { name: template.name, language: template.language.code };
  const check = async (fresh: boolean) => {
    const expected = await deps.templates.get(deps.db, actor, { channelId, ...ref }, { fresh });
    return expected && parameterMismatch(expected, template.components);
  };
  // A refusal is never made on the cache alone: the template may have changed in another process.
  const mismatch = (await check(false)) && (await check(true));
  return mismatch ? { refusal: 'template_mismatch', template: ref, mismatch } : undefined;
}

/**
 * Refuses media URLs that fail the checks needing no DNS (scheme, credentials, an IP literal that is
 * not public); the dispatcher's media probe checks the resolved addresses before it connects.
 */
function assertMediaTargets(type: string, content: Record<string, unknown>, targets: TargetPolicy): void {
  const bad = mediaOf(type, content).flatMap((m) => {
    try {
      assertSafeTargetSyntax(m.url, targets);
      return [];
    } catch (err) {
      if (err instanceof UnsafeTargetError) return [{ pointer: m.pointer, message: err.message }];
      throw err;
    }
  });
  if (bad.length === 0) return;
  throw invalid(
    `media URL refused: ${bad[0]!.message}`,
    bad.map((m) => ({ pointer: m.pointer, message: m.message })),
  );
}

/** A media id is the provider's, from an upload: refused, naming each, where the platform has no uploads. */
function assertMediaIds(platform: Platform, type: string, content: Record<string, unknown>): void {
  if (supportsOperation(platform, 'media.upload')) return;
  const pointers = mediaIdsOf(type, content);
  if (pointers.length === 0) return;
  throw new DomainError(
    'unsupported',
    `media_id names a file uploaded to the provider (POST /v1/channels/{channelID}/media), which ${platform} channels do not have: send media_url`,
    {
      extra: { operation: 'media.upload', platform },
      fieldErrors: pointers.map((pointer) => ({ pointer, message: `not on ${platform}: use media_url` })),
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Idempotency-Key

/** The message as it was first answered: accepted, queued, nothing sent yet. */
function asAccepted(row: MessageRow): MessageRow {
  return { ...row, ...NOTHING_SENT, dispatchAt: row.createdAt, updatedAt: row.createdAt };
}

/** An Idempotency-Key's live first answer, a conflict (another request, or its message gone), or undefined. */
async function findIdempotentAnswer(
  deps: { db: Executor; clock: Clock },
  actor: Actor,
  key: string,
  requestHash: string,
): Promise<SendOutcome | undefined> {
  const [row] = await deps.db
    .select({ requestHash: idempotencyKeys.requestHash, message: messages })
    .from(idempotencyKeys)
    .leftJoin(messages, eq(messages.id, idempotencyKeys.messageId))
    .where(
      and(
        eq(idempotencyKeys.organizationId, actor.organizationId),
        eq(idempotencyKeys.key, key),
        gte(idempotencyKeys.createdAt, new Date(deps.clock.now().getTime() - IDEMPOTENCY_HOURS * 3_600_000)),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  if (row.requestHash !== requestHash) return { refusal: 'idempotency_conflict', cause: 'other_request' };
  if (!row.message) return { refusal: 'idempotency_conflict', cause: 'message_gone' };
  return { refusal: null, message: asAccepted(row.message), replayed: true };
}

/**
 * acceptMessage behind an Idempotency-Key: the key's live first answer when there is one (a
 * conflict for another request), else the new message, whose key the accepting statement itself
 * records. When two requests race with one key, the second statement fails on the key and answers
 * with the first's.
 */
export async function acceptMessageOnce(deps: MessageDeps, actor: Actor, input: SendInput): Promise<SendOutcome> {
  const idem = input.idempotency;
  if (!idem) return acceptMessage(deps, actor, input);
  const previous = await findIdempotentAnswer(deps, actor, idem.key, idem.requestHash);
  if (previous) return previous;
  for (let round = 0; ; round++) {
    try {
      return await acceptMessage(deps, actor, input);
    } catch (err) {
      if (!isUniqueViolation(err) || round > 0) throw err;
      const winner = await findIdempotentAnswer(deps, actor, idem.key, idem.requestHash);
      if (winner) return winner;
      // The key's row is older than its 24 hours: it makes way for this request.
      await deps.db
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.organizationId, actor.organizationId),
            eq(idempotencyKeys.key, idem.key),
            lt(idempotencyKeys.createdAt, new Date(deps.clock.now().getTime() - IDEMPOTENCY_HOURS * 3_600_000)),
          ),
        );
    }
  }
}
