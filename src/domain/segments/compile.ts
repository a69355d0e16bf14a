/**
 * A checked filter (filter.ts) as one SQL condition on the `contacts` table: every value a parameter,
 * every field a fixed column or expression, so nothing the caller wrote becomes SQL text. Runs on
 * PostgreSQL and PGlite alike. The condition refers to "contacts"."id" and is meant for a query on
 * contacts already scoped to the organization; every subquery is scoped to it too, so another
 * organization's tag, list, channel or company matches nothing.
 *
 * What a condition means:
 * - text ops compare case-insensitively (phone numbers are E.164 and compare as stored); a contact
 *   without the field fits `neq`, `not_in` and `exists: false` and no other.
 * - custom fields are typed by the value given: a number compares the stored numbers, a text the
 *   stored texts (case-insensitively for eq/in/contains/starts_with; gt/lt in code-point order, so
 *   ISO dates compare in time order), a boolean the stored booleans.
 * - consents.<scope> reads the consent row of exactly that scope; `neq granted` includes contacts
 *   without one. suppressions.<scope> is an active suppression of that scope (`any`: of any scope).
 * - last_inbound_at is the latest customer message over the contact's conversations; `before` needs one.
 * - company.* holds when a company linked to the contact (a relationship of any label, either way) fits.
 */
import { sql, type SQL } from 'drizzle-orm';
import { contacts } from '../../db/schema.ts';
import { durationMs, fieldType, type Condition, type FilterGroup, type FilterNode } from './filter.ts';

type Ctx = { organizationId: string; now: Date };

/** A record's columns as the compiler reaches them: contacts' or a linked company's (`co`). */
type Target = { column(name: string): SQL; customFields: SQL };

const CONTACT: Target = {
  column: (name) => {
    const columns: Record<string, SQL> = {
      name: sql`${contacts.name}`,
      email: sql`${contacts.email}`,
      phone_number: sql`${contacts.phoneNumber}`,
      external_source: sql`${contacts.externalSource}`,
      external_id: sql`${contacts.externalId}`,
      created_at: sql`${contacts.createdAt}`,
      updated_at: sql`${contacts.updatedAt}`,
    };
    return columns[name]!;
  },
  customFields: sql`${contacts.customFields}`,
};

const COMPANY: Target = {
  column: (name) => {
    const columns: Record<string, SQL> = {
      name: sql`co.name`,
      domain: sql`co.domain`,
      phone: sql`co.phone`,
      'address.country': sql`(co.address ->> 'country')`,
      'address.city': sql`(co.address ->> 'city')`,
      owner_user_id: sql`co.owner_user_id`,
      created_at: sql`co.created_at`,
    };
    return columns[name]!;
  },
  customFields: sql`co.custom_fields`,
};

/** The SQL condition of a checked filter. */
export function compileFilter(filter: FilterGroup, ctx: Ctx): SQL {
  return node(filter, ctx);
}

function node(n: FilterNode, ctx: Ctx): SQL {
  if ('and' in n)
    return sql`(${sql.join(
      n.and.map((c) => node(c, ctx)),
      sql` and `,
    )})`;
  if ('or' in n)
    return sql`(${sql.join(
      n.or.map((c) => node(c, ctx)),
      sql` or `,
    )})`;
  return condition(n, ctx);
}

const lower = (v: string) => v.toLowerCase();
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const not = (c: SQL) => sql`not coalesce(${c}, false)`;

function condition(c: Condition, ctx: Ctx): SQL {
  const type = fieldType(c.field)!;
  const { field } = c;
  switch (type) {
    case 'text':
      return field.startsWith('company.')
        ? viaCompany(textOp(COMPANY.column(field.slice(8)), c, field.endsWith('phone')), ctx)
        : textOp(CONTACT.column(field), c, field === 'phone_number');
    case 'time':
      return field.startsWith('company.')
        ? viaCompany(timeOp(COMPANY.column('created_at'), c, ctx), ctx)
        : timeOp(CONTACT.column(field), c, ctx);
    case 'custom': {
      const company = field.startsWith('company.');
      const key = field.slice(company ? 'company.custom_fields.'.length : 'custom_fields.'.length);
      return company ? viaCompany(customOp(COMPANY.customFields, key, c), ctx) : customOp(CONTACT.customFields, key, c);
    }
    case 'owner': {
      const column = COMPANY.column('owner_user_id');
      if (c.op === 'exists') return viaCompany(c.value ? sql`${column} is not null` : sql`${column} is null`, ctx);
      return viaCompany(c.op === 'eq' ? sql`${column} = ${c.value}::uuid` : sql`${column} is distinct from ${c.value}::uuid`, ctx);
    }
    case 'company':
      return c.value ? viaCompany(sql`true`, ctx) : not(viaCompany(sql`true`, ctx));
    case 'inbound':
      return inboundOp(c, ctx);
    case 'tags': {
      const has = sql`${contacts.id} in (select ct.contact_id from contact_tags ct join tags t on t.id = ct.tag_id
        where t.organization_id = ${ctx.organizationId} and lower(t.name) = lower(${String(c.value).trim()}))`;
      return c.op === 'has' ? has : not(has);
    }
    case 'lists': {
      const ids = Array.isArray(c.value) ? (c.value as string[]) : [c.value as string];
      const inList = sql`${contacts.id} in (select le.contact_id from list_entries le
        where le.organization_id = ${ctx.organizationId} and le.contact_id is not null
          and le.list_id in (${sql.join(
            ids.map((id) => sql`${id}::uuid`),
            sql`, `,
          )}))`;
      return c.op === 'in' ? inList : not(inList);
    }
    case 'consent': {
      const scope = field.slice('consents.'.length);
      const stated = sql`${contacts.id} in (select cc.contact_id from contact_consents cc
        where cc.organization_id = ${ctx.organizationId} and cc.channel = ${scope} and cc.state = ${c.value})`;
      return c.op === 'eq' ? stated : not(stated);
    }
    case 'suppression': {
      const scope = field.slice('suppressions.'.length);
      const active = sql`${contacts.id} in (select cs.contact_id from contact_suppressions cs
        where cs.organization_id = ${ctx.organizationId}
          ${scope === 'any' ? sql`` : sql`and cs.channel = ${scope}`}
          and (cs.expires_at is null or cs.expires_at > ${ctx.now}))`;
      return c.value ? active : not(active);
    }
    default:
      return type satisfies never;
  }
}

/**
 * The contact is linked to a company of the organization fitting `cond` (on `co`), by a relationship
 * either way. Each subquery here is uncorrelated (`id in (select ...)`): the database reads the
 * matching rows once and probes a hash per contact, where a correlated `exists` would look them up
 * once per contact (a count reads every contact of the organization).
 */
function viaCompany(cond: SQL, ctx: Ctx): SQL {
  return sql`${contacts.id} in (
    select r.from_contact_id from relationships r join companies co on co.id = r.to_company_id
     where r.organization_id = ${ctx.organizationId} and r.from_contact_id is not null and co.organization_id = ${ctx.organizationId} and ${cond}
    union all
    select r.to_contact_id from relationships r join companies co on co.id = r.from_company_id
     where r.organization_id = ${ctx.organizationId} and r.to_contact_id is not null and co.organization_id = ${ctx.organizationId} and ${cond})`;
}

function textOp(column: SQL, c: Condition, exact: boolean): SQL {
  const subject = exact ? column : sql`lower(${column})`;
  const v = (x: unknown) => (exact ? String(x) : lower(String(x)));
  switch (c.op) {
    case 'eq':
      return sql`${subject} = ${v(c.value)}`;
    case 'neq':
      return not(sql`${subject} = ${v(c.value)}`);
    case 'in':
      return sql`${subject} in (${sql.join(
        (c.value as string[]).map((x) => sql`${v(x)}`),
        sql`, `,
      )})`;
    case 'not_in':
      return not(
        sql`${subject} in (${sql.join(
          (c.value as string[]).map((x) => sql`${v(x)}`),
          sql`, `,
        )})`,
      );
    case 'contains':
      return sql`${subject} like ${`%${likeLiteral(v(c.value))}%`}`;
    case 'starts_with':
      return sql`${subject} like ${`${likeLiteral(v(c.value))}%`}`;
    case 'exists':
      return c.value ? sql`${column} is not null` : sql`${column} is null`;
    default:
      throw new Error(`text op ${c.op}`);
  }
}

function timeOp(column: SQL, c: Condition, ctx: Ctx): SQL {
  switch (c.op) {
    case 'before':
      return sql`${column} < ${new Date(String(c.value))}`;
    case 'after':
      return sql`${column} > ${new Date(String(c.value))}`;
    case 'within':
      return sql`${column} >= ${new Date(ctx.now.getTime() - durationMs(String(c.value)))}`;
    default:
      throw new Error(`time op ${c.op}`);
  }
}

function inboundOp(c: Condition, ctx: Ctx): SQL {
  const any = (cond: SQL) =>
    sql`${contacts.id} in (select cv.contact_id from conversations cv
      where cv.organization_id = ${ctx.organizationId} and cv.contact_id is not null and cv.last_inbound_at is not null and ${cond})`;
  switch (c.op) {
    case 'exists':
      return c.value ? any(sql`true`) : not(any(sql`true`));
    case 'after':
      return any(sql`cv.last_inbound_at > ${new Date(String(c.value))}`);
    case 'within':
      return any(sql`cv.last_inbound_at >= ${new Date(ctx.now.getTime() - durationMs(String(c.value)))}`);
    case 'before': {
      // The latest is before the time: there is one, and none at or after it.
      const at = new Date(String(c.value));
      return sql`(${any(sql`cv.last_inbound_at < ${at}`)} and ${not(any(sql`cv.last_inbound_at >= ${at}`))})`;
    }
    default:
      throw new Error(`inbound op ${c.op}`);
  }
}

function customOp(fields: SQL, key: string, c: Condition): SQL {
  const json = sql`(${fields} -> ${key}::text)`;
  const text = sql`(${fields} ->> ${key}::text)`;
  const typeIs = (t: string) => sql`jsonb_typeof(${json}) = ${t}`;
  const equal = (x: unknown): SQL =>
    typeof x === 'string' ? sql`(${typeIs('string')} and lower(${text}) = ${lower(x)})` : sql`${json} = ${JSON.stringify(x)}::jsonb`;
  const ordered = (cmp: SQL) =>
    typeof c.value === 'number'
      ? // A case, not an and: the cast must never meet a text (SQL does not promise the and's order).
        sql`(case when ${typeIs('number')} then (${text})::numeric end) ${cmp} ${c.value}::numeric`
      : sql`(${typeIs('string')} and (${text} collate "C") ${cmp} (${String(c.value)} collate "C"))`;
  switch (c.op) {
    case 'eq':
      return equal(c.value);
    case 'neq':
      return not(equal(c.value));
    case 'in':
      return sql`(${sql.join((c.value as unknown[]).map(equal), sql` or `)})`;
    case 'not_in':
      return not(sql`(${sql.join((c.value as unknown[]).map(equal), sql` or `)})`);
    case 'contains':
      return sql`(${typeIs('string')} and lower(${text}) like ${`%${likeLiteral(lower(String(c.value)))}%`})`;
    case 'starts_with':
      return sql`(${typeIs('string')} and lower(${text}) like ${`${likeLiteral(lower(String(c.value)))}%`})`;
    case 'gt':
      return ordered(sql.raw('>'));
    case 'gte':
      return ordered(sql.raw('>='));
    case 'lt':
      return ordered(sql.raw('<'));
    case 'lte':
      return ordered(sql.raw('<='));
    case 'exists':
      return c.value ? sql`(${json} is not null and ${json} <> 'null'::jsonb)` : sql`(${json} is null or ${json} = 'null'::jsonb)`;
    default:
      throw new Error(`custom op ${c.op}`);
  }
}
