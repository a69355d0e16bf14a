/**
 * One search over an organization's contacts, companies, deals and message text (GET /v1/search):
 * PostgreSQL full-text search (db/search-vectors.ts, GIN indexes), every word a prefix of a word
 * found (search as you type), ranked by ts_rank across kinds. A credential searches only the kinds it
 * may read: contacts with contacts:read, companies and deals with crm:read, messages with messages:read.
 *
 * Messages are many: the newest MESSAGE_CANDIDATES that match are ranked with the records, so a word
 * in half the organization's messages costs a bounded ranking, and recent conversations win ties.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { queryRows } from '../../db/client.ts';
import { companyDocument, contactDocument, dealDocument, messageDocument } from '../../db/search-vectors.ts';
import { companies, contacts, deals, messages } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid } from '../errors.ts';
import type { Permission } from '../permissions.ts';

export const SEARCH_KINDS = ['contact', 'company', 'deal', 'message'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** The permission that reads each kind. */
export const SEARCH_KIND_PERMISSION: Record<SearchKind, Permission> = {
  contact: 'contacts:read',
  company: 'crm:read',
  deal: 'crm:read',
  message: 'messages:read',
};

/** How deep a search pages (results past it are not worth reading: refine the words). */
export const SEARCH_DEPTH_MAX = 500;
/** The newest matching messages ranked with the records (see the module's note). */
export const MESSAGE_CANDIDATES = 200;
/** Words of a query that count; the rest are ignored. */
const WORDS_MAX = 8;

export type SearchHit = {
  kind: SearchKind;
  id: string;
  title: string;
  snippet: string | null;
  rank: number;
  createdAt: Date;
  /** The conversation of a message (or the one a deal came from); null otherwise. */
  conversationId: string | null;
  /** The contact who wrote or got a message; null otherwise. */
  contactId: string | null;
};

export type SearchQuery = { q: string; kinds?: readonly SearchKind[]; limit: number; cursor?: string };
export type SearchPage = { items: SearchHit[]; nextCursor: string | null };

/**
 * The tsquery text of what a person typed: each word (letters and digits) a prefix; a query of digits
 * and phone punctuation only is one number (+49 151 123 or 0049 151 123 finds +4915112345678). Undefined when no word is left.
 */
export function tsqueryOf(q: string): string | undefined {
  const trimmed = q.trim();
  if (/^[+(]?[\d\s().-]+$/.test(trimmed) && /\d/.test(trimmed)) {
    // 00 is the international prefix dialled: the number stored starts after it.
    const digits = trimmed.replace(/\D/g, '');
    return `${digits.startsWith('00') && digits.length > 2 ? digits.slice(2) : digits}:*`;
  }
  const words = (trimmed.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, WORDS_MAX);
  if (words.length === 0) return undefined;
  return words.map((w) => `${w}:*`).join(' & ');
}

const cursorOf = (offset: number) => Buffer.from(JSON.stringify({ o: offset })).toString('base64url');

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof value.o === 'number' && Number.isSafeInteger(value.o) && value.o > 0 && value.o < SEARCH_DEPTH_MAX) return value.o;
  } catch {
    // fall through
  }
  throw invalid('cursor is not valid', [{ pointer: '/cursor', message: 'not a cursor returned by this API' }]);
}

/** The kinds searched: those asked for (each must be readable) or every one the actor may read. */
function kindsFor(actor: Actor, asked: readonly SearchKind[] | undefined): SearchKind[] {
  if (asked) {
    const refused = asked.find((k) => !actor.permissions.has(SEARCH_KIND_PERMISSION[k]));
    if (refused) {
      const permission = SEARCH_KIND_PERMISSION[refused];
      throw new DomainError('forbidden', `searching ${refused} records needs ${permission}`, { extra: { permission } });
    }
    return [...new Set(asked)];
  }
  const readable = SEARCH_KINDS.filter((k) => actor.permissions.has(SEARCH_KIND_PERMISSION[k]));
  if (readable.length === 0) {
    throw new DomainError('forbidden', 'searching needs one of contacts:read, crm:read or messages:read', {
      extra: { permission: 'contacts:read' },
    });
  }
  return readable;
}

/** One kind's matches, as rows of the union (kind, id, title, rank, created_at, conversation_id, contact_id, body). */
function branch(kind: SearchKind, organizationId: string, query: SQL): SQL {
  switch (kind) {
    case 'contact': {
      const doc = contactDocument(contacts);
      return sql`select 'contact' as kind, ${contacts.id} as id,
          coalesce(${contacts.name}, ${contacts.phoneNumber}, ${contacts.email}, '') as title,
          ts_rank(${doc}, ${query}) as rank, ${contacts.createdAt} as created_at,
          null::uuid as conversation_id, null::uuid as contact_id, null::text as body
        from ${contacts} where ${contacts.organizationId} = ${organizationId} and ${doc} @@ ${query}`;
    }
    case 'company': {
      const doc = companyDocument(companies);
      return sql`select 'company', ${companies.id}, ${companies.name}, ts_rank(${doc}, ${query}), ${companies.createdAt},
          null::uuid, null::uuid, null::text
        from ${companies} where ${companies.organizationId} = ${organizationId} and ${doc} @@ ${query}`;
    }
    case 'deal': {
      const doc = dealDocument(deals);
      return sql`select 'deal', ${deals.id}, ${deals.name}, ts_rank(${doc}, ${query}), ${deals.createdAt},
          ${deals.conversationId}, null::uuid, null::text
        from ${deals} where ${deals.organizationId} = ${organizationId} and ${doc} @@ ${query}`;
    }
    case 'message': {
      const doc = messageDocument(messages);
      const text = sql`coalesce(case when ${messages.type} = 'text' then ${messages.content} ->> 'body' else ${messages.content} ->> 'caption' end, '')`;
      // The newest candidates first (bounded), then ranked with the rest.
      return sql`select * from (select 'message', ${messages.id}, left(${text}, 140), ts_rank(${doc}, ${query}), ${messages.createdAt},
          ${messages.conversationId}, ${messages.contactId}, ${text}
        from ${messages}
        where ${messages.organizationId} = ${organizationId} and ${messages.deletedAt} is null and ${doc} @@ ${query}
        order by ${messages.createdAt} desc limit ${MESSAGE_CANDIDATES}) as newest_messages`;
    }
    default:
      return kind satisfies never;
  }
}

type Row = {
  kind: SearchKind;
  id: string;
  title: string;
  rank: number;
  created_at: string | Date;
  conversation_id: string | null;
  contact_id: string | null;
  snippet: string | null;
};

/** A page of the ranked matches: best first (then newest, then by id), by an opaque cursor. */
export async function search({ db }: { db: Executor }, actor: Actor, input: SearchQuery): Promise<SearchPage> {
  const kinds = kindsFor(actor, input.kinds);
  const offset = offsetOf(input.cursor);
  const text = tsqueryOf(input.q);
  if (text === undefined) {
    throw invalid('q must hold a word (letters or digits)', [{ pointer: '/q', message: 'no letters or digits to search for' }]);
  }
  const query = sql`to_tsquery('simple'::regconfig, ${text})`;
  const limit = Math.min(input.limit, SEARCH_DEPTH_MAX - offset);
  const union = sql.join(
    kinds.map((k) => sql`(${branch(k, actor.organizationId, query)})`),
    sql` union all `,
  );
  const rows = await queryRows<Row>(
    db,
    sql`select kind, id, title, rank, created_at, conversation_id, contact_id,
          case when body is null then null
               else ts_headline('simple'::regconfig, body, ${query}, 'StartSel="", StopSel="", MaxWords=24, MinWords=8, ShortWord=2') end as snippet
        from (select * from (${union}) as hits(kind, id, title, rank, created_at, conversation_id, contact_id, body)
              order by rank desc, created_at desc, id limit ${limit + 1} offset ${offset}) as page
        order by rank desc, created_at desc, id`,
  );
  const more = rows.length > limit && offset + limit < SEARCH_DEPTH_MAX;
  return {
    items: rows.slice(0, limit).map((r) => ({
      kind: r.kind,
      id: r.id,
      title: r.title,
      snippet: r.snippet,
      rank: Number(r.rank),
      createdAt: new Date(r.created_at),
      conversationId: r.conversation_id,
      contactId: r.contact_id,
    })),
    nextCursor: more ? cursorOf(offset + limit) : null,
  };
}
