/**
 * A record's timeline (docs/crm.md): what happened to a contact, company or deal, newest first, in one
 * feed: messages, comments, tasks created and completed, deal stage changes, consents and
 * suppressions. One statement: a UNION ALL of one branch per source, each branch ordered and cut to
 * the page on its own index, then merged and cut again. A page's cursor is the last item's place,
 * (at, source, id) with `at` to the microsecond as stored, so a cursor is exact: no item is skipped or
 * repeated however many share a time, and items that arrive later come before every cursor handed out.
 * The record is checked to be the organization's first; the branches then name only the record (what
 * points at a record is always of its organization), so each reads its own index.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { queryRows } from '../../db/client.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';

export const TIMELINE_KINDS = ['message', 'comment', 'task', 'deal_stage', 'consent', 'suppression'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];
export const TIMELINE_ACTIONS = ['received', 'sent', 'created', 'completed', 'changed', 'granted', 'revoked', 'added'] as const;
export type TimelineAction = (typeof TIMELINE_ACTIONS)[number];
export const TIMELINE_SUBJECTS = ['contact', 'company', 'deal'] as const;
export type TimelineSubject = { kind: (typeof TIMELINE_SUBJECTS)[number]; id: string };

/** An item: its source row's id and time, and what the source says about it (`data`, by kind). */
export type TimelineItem = {
  kind: TimelineKind;
  action: TimelineAction;
  id: string;
  at: Date;
  data: Record<string, any>;
};

export type TimelineQuery = { limit: number; cursor?: string; kinds?: readonly TimelineKind[] };
export type TimelineDeps = { db: Executor };

/**
 * The sources, in the order items of one instant are listed (highest rank first). A source is one
 * branch of the query; a task gives two items (created, completed), so it is two sources.
 */
const SOURCES = ['consent', 'suppression', 'deal_stage', 'task_created', 'task_completed', 'comment', 'message'] as const;
type Source = (typeof SOURCES)[number];
const KIND_OF: Record<Source, TimelineKind> = {
  consent: 'consent',
  suppression: 'suppression',
  deal_stage: 'deal_stage',
  task_created: 'task',
  task_completed: 'task',
  comment: 'comment',
  message: 'message',
};

/** The place of an item: its time as stored (microseconds, UTC text), its source's rank and its id. */
type Place = { t: string; r: number; id: string };

const PLACE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function encodePlace(place: Place): string {
  return Buffer.from(JSON.stringify(place)).toString('base64url');
}

const badCursor = () =>
  invalid('cursor is not valid', [{ pointer: '/cursor', message: 'not a cursor returned by this API', location: 'query' }]);

/** The place a timeline cursor holds, or the `invalid` refusal naming /cursor for one this API did not make. */
function readPlace(cursor: string): Place {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Place>;
    if (
      value &&
      typeof value.t === 'string' &&
      PLACE_TIME.test(value.t) &&
      !Number.isNaN(Date.parse(value.t)) &&
      Number.isInteger(value.r) &&
      (value.r as number) >= 0 &&
      (value.r as number) < SOURCES.length &&
      typeof value.id === 'string' &&
      UUID.test(value.id)
    )
      return { t: value.t, r: value.r as number, id: value.id };
  } catch {
    // fall through
  }
  throw badCursor();
}

/** The rows of a branch after the cursor (newest first: time, then source rank, then id, each descending). */
function after(place: Place | undefined, rank: number, time: SQL, id: SQL): SQL {
  if (!place) return sql`true`;
  const t = sql`${place.t}::timestamptz`;
  if (rank < place.r) return sql`${time} <= ${t}`;
  if (rank > place.r) return sql`${time} < ${t}`;
  return sql`(${time}, ${id}) < (${t}, ${place.id}::uuid)`;
}

type Branch = (place: Place | undefined, limit: number) => SQL;

/** One branch: its rows as (at, rank, id, action, data), ordered and cut on its own. */
function branch(source: Source, select: { time: SQL; id: SQL; action: SQL; data: SQL; from: SQL; where: SQL }): Branch {
  const rank = SOURCES.indexOf(source);
  return (
    place,
    limit,
  ) => sql`(select ${select.time} as at, ${rank}::int as rank, ${select.id} as id, ${select.action} as action, ${select.data} as data
      from ${select.from}
     where ${select.where} and ${after(place, rank, select.time, select.id)}
     order by ${select.time} desc, ${select.id} desc limit ${limit})`;
}

const changedBy = (alias: string, prefix: string) =>
  sql.raw(`jsonb_build_object('type', ${alias}.${prefix}_type, 'id', ${alias}.${prefix}_id, 'user_id', ${alias}.${prefix}_user_id)`);

const messageData = sql`jsonb_build_object('conversation_id', m.conversation_id, 'channel_id', m.channel_id, 'direction', m.direction,
  'type', m.type, 'status', m.status, 'deleted', m.deleted_at is not null,
  'preview', left(coalesce(nullif(m.content->>'body', ''), nullif(m.content->>'caption', ''), nullif(m.content->>'question', ''), nullif(m.content->>'title', '')), 160),
  'template', m.content#>>'{template,name}')`;
const messageAction = sql`case m.direction when 'inbound' then 'received' else 'sent' end`;

function messagesWhere(where: SQL): Branch {
  return branch('message', {
    time: sql`m.created_at`,
    id: sql`m.id`,
    action: messageAction,
    data: messageData,
    from: sql`messages m`,
    where,
  });
}

function commentsOn(kind: string, id: string): Branch {
  return branch('comment', {
    time: sql`c.created_at`,
    id: sql`c.id`,
    action: sql`'created'`,
    data: sql`jsonb_build_object('body', left(c.body, 280), 'truncated', length(c.body) > 280, 'edited_at', c.edited_at,
      'record_kind', c.record_kind, 'record_id', c.record_id, 'author', ${changedBy('c', 'author')})`,
    from: sql`comments c`,
    where: sql`c.record_id = ${id}::uuid and c.record_kind = ${kind}`,
  });
}

const taskData = sql`jsonb_build_object('title', t.title, 'status', t.status, 'due_at', t.due_at, 'priority', t.priority,
  'assignee_user_id', t.assignee_user_id, 'created_by', ${changedBy('t', 'created_by')},
  'completed_by', case when t.completed_at is null then null else ${changedBy('t', 'completed_by')} end)`;

function tasksOf(kind: string, id: string): Branch[] {
  const from = sql`task_targets tt join tasks t on t.id = tt.task_id`;
  const where = sql`tt.record_id = ${id}::uuid and tt.record_kind = ${kind}`;
  return [
    branch('task_created', { time: sql`t.created_at`, id: sql`t.id`, action: sql`'created'`, data: taskData, from, where }),
    branch('task_completed', {
      time: sql`t.completed_at`,
      id: sql`t.id`,
      action: sql`'completed'`,
      data: taskData,
      from,
      where: sql`${where} and t.completed_at is not null`,
    }),
  ];
}

/**
 * Stage changes of the deals `deals` selects (a query of deal ids): each stay entered, with the stage it
 * left (the deal's stay before it: lag() over its stays, computed before the cursor cuts them).
 */
function stageChanges(deals: SQL): Branch {
  return branch('deal_stage', {
    time: sql`h.entered_at`,
    id: sql`h.id`,
    action: sql`case when h.prev_stage_id is null then 'created' else 'changed' end`,
    data: sql`jsonb_build_object('deal_id', d.id, 'deal_name', d.name, 'pipeline_id', h.pipeline_id,
      'from_stage', case when h.prev_stage_id is null then null else jsonb_build_object('id', h.prev_stage_id, 'name', coalesce(ps_prev.name, h.prev_stage_name)) end,
      'to_stage', jsonb_build_object('id', h.stage_id, 'name', coalesce(ps.name, h.stage_name)),
      'changed_by', ${changedBy('h', 'changed_by')})`,
    from: sql`(select s.*, lag(s.stage_id) over w as prev_stage_id, lag(s.stage_name) over w as prev_stage_name
                 from deal_stage_history s where s.deal_id in (${deals})
               window w as (partition by s.deal_id order by s.entered_at, s.id)) h
      join deals d on d.id = h.deal_id
      left join pipeline_stages ps on ps.id = h.stage_id
      left join pipeline_stages ps_prev on ps_prev.id = h.prev_stage_id`,
    where: sql`true`,
  });
}

function consentsOf(contactId: string): Branch {
  return branch('consent', {
    time: sql`cc.recorded_at`,
    id: sql`cc.id`,
    action: sql`cc.state`,
    data: sql`jsonb_build_object('channel', cc.channel, 'source', cc.source)`,
    from: sql`contact_consents cc`,
    where: sql`cc.contact_id = ${contactId}::uuid`,
  });
}

function suppressionsOf(contactId: string): Branch {
  return branch('suppression', {
    time: sql`s.created_at`,
    id: sql`s.id`,
    action: sql`'added'`,
    data: sql`jsonb_build_object('channel', s.channel, 'reason', s.reason, 'expires_at', s.expires_at)`,
    from: sql`contact_suppressions s`,
    where: sql`s.contact_id = ${contactId}::uuid`,
  });
}

/** The branches of a record's timeline, by kind; not_found for a record the organization does not have. */
async function branchesOf(db: Executor, org: string, subject: TimelineSubject): Promise<Record<TimelineKind, Branch[]>> {
  const id = subject.id.toLowerCase();
  if (!isUuid(id)) throw notFound(subject.kind);
  switch (subject.kind) {
    case 'contact': {
      const [row] = await queryRows<{ id: string }>(db, sql`select id from contacts where id = ${id}::uuid and organization_id = ${org}`);
      if (!row) throw notFound('contact');
      return {
        // No organization condition beside the record's own (checked above): it would let the planner walk
        // the organization's messages by time (messages_organization_created_idx) looking for this contact's.
        message: [messagesWhere(sql`m.contact_id = ${id}::uuid`)],
        comment: [commentsOn('contact', id)],
        task: tasksOf('contact', id),
        deal_stage: [stageChanges(sql`select dc.deal_id from deal_contacts dc where dc.contact_id = ${id}::uuid`)],
        consent: [consentsOf(id)],
        suppression: [suppressionsOf(id)],
      };
    }
    case 'company': {
      const [row] = await queryRows<{ id: string }>(db, sql`select id from companies where id = ${id}::uuid and organization_id = ${org}`);
      if (!row) throw notFound('company');
      return {
        message: [],
        comment: [commentsOn('company', id)],
        task: tasksOf('company', id),
        deal_stage: [stageChanges(sql`select cd.id from deals cd where cd.company_id = ${id}::uuid`)],
        consent: [],
        suppression: [],
      };
    }
    case 'deal': {
      const [row] = await queryRows<{ id: string; conversation_id: string | null }>(
        db,
        sql`select id, conversation_id from deals where id = ${id}::uuid and organization_id = ${org}`,
      );
      if (!row) throw notFound('deal');
      return {
        message: row.conversation_id ? [messagesWhere(sql`m.conversation_id = ${row.conversation_id}::uuid`)] : [],
        comment: [commentsOn('deal', id)],
        task: tasksOf('deal', id),
        deal_stage: [stageChanges(sql`select ${id}::uuid`)],
        consent: [],
        suppression: [],
      };
    }
    default:
      return subject.kind satisfies never;
  }
}

type Row = { at: Date | string; at_text: string; rank: number; id: string; action: TimelineAction; data: Record<string, any> | string };

/** The statement of a page of the record's timeline (for getTimeline, and for a benchmark's EXPLAIN); undefined when no kind has a source. */
export async function timelineStatement(
  db: Executor,
  organizationId: string,
  subject: TimelineSubject,
  query: TimelineQuery,
): Promise<SQL | undefined> {
  const place = query.cursor === undefined ? undefined : readPlace(query.cursor);
  const branches = await branchesOf(db, organizationId, subject);
  const kinds = query.kinds && query.kinds.length > 0 ? query.kinds : TIMELINE_KINDS;
  const parts = kinds.flatMap((k) => branches[k]).map((b) => b(place, query.limit + 1));
  if (parts.length === 0) return undefined;
  return sql`select at, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at_text, rank, id, action, data
          from (${sql.join(parts, sql` union all `)}) timeline
         order by at desc, rank desc, id desc limit ${query.limit + 1}`;
}

/** A page of the record's timeline, newest first, of the kinds asked (every kind by default). */
export async function getTimeline(
  { db }: TimelineDeps,
  actor: Actor,
  subject: TimelineSubject,
  query: TimelineQuery,
): Promise<{ items: TimelineItem[]; nextCursor: string | null }> {
  const statement = await timelineStatement(db, actor.organizationId, subject, query);
  if (!statement) return { items: [], nextCursor: null };
  const rows = await queryRows<Row>(db, statement);
  const items = rows.slice(0, query.limit).map((r) => ({
    kind: KIND_OF[SOURCES[r.rank]!],
    action: r.action,
    id: r.id,
    at: new Date(r.at),
    data: typeof r.data === 'string' ? (JSON.parse(r.data) as Record<string, any>) : r.data,
  }));
  const last = rows.length > query.limit ? rows[query.limit - 1] : undefined;
  return { items, nextCursor: last ? encodePlace({ t: last.at_text, r: Number(last.rank), id: last.id }) : null };
}
