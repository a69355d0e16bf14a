/**
 * The text search documents of the searchable records (domain/search): one expression per table, used
 * both by its GIN index (schema.ts) and by the queries, so the planner matches them. The `simple`
 * configuration: no stemming and no stop words (customers write in every language; a name is no
 * English word), lower-cased; punctuation in emails and domains also splits them, so "lima" finds
 * ana.lima@example.com. PostgreSQL 15 and PGlite both have it.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';

/** Words of an address or domain: the whole token and its parts. */
const split = (column: AnyPgColumn | SQL) => sql`coalesce(${column}, '') || ' ' || translate(coalesce(${column}, ''), '@.-_+', '     ')`;

export const contactDocument = (t: { name: AnyPgColumn; email: AnyPgColumn; phoneNumber: AnyPgColumn }) =>
  sql`to_tsvector('simple'::regconfig, coalesce(${t.name}, '') || ' ' || ${split(t.email)} || ' ' || coalesce(ltrim(${t.phoneNumber}, '+'), ''))`;

export const companyDocument = (t: { name: AnyPgColumn; domain: AnyPgColumn; phone: AnyPgColumn }) =>
  sql`to_tsvector('simple'::regconfig, ${t.name} || ' ' || ${split(t.domain)} || ' ' || coalesce(ltrim(${t.phone}, '+'), ''))`;

export const dealDocument = (t: { name: AnyPgColumn }) => sql`to_tsvector('simple'::regconfig, ${t.name})`;

/** A message's words: a text's body, a media message's caption. */
export const messageDocument = (t: { type: AnyPgColumn; content: AnyPgColumn }) =>
  sql`to_tsvector('simple'::regconfig, coalesce(case when ${t.type} = 'text' then ${t.content} ->> 'body' else ${t.content} ->> 'caption' end, ''))`;
