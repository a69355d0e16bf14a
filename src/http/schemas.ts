/** Schemas shared by several route groups: envelopes, pagination, ids. */
import { z } from 'zod';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../lib/cursor.ts';

export const PageQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAGE_SIZE_MAX)
    .default(PAGE_SIZE_DEFAULT)
    .meta({ description: `Page size, 1 to ${PAGE_SIZE_MAX} (default ${PAGE_SIZE_DEFAULT})` }),
  cursor: z.string().max(512).optional().meta({ description: 'meta.next_cursor of the previous page' }),
});

export const PageMetaSchema = z.object({
  next_cursor: z.string().nullable().meta({ description: 'Cursor of the next page; null on the last page' }),
});

/** The body of a list answer (listOf): the records and the next page's cursor. */
export type Page<T> = { data: T[]; meta: z.infer<typeof PageMetaSchema> };

export function dataOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

export function listOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: z.array(schema), meta: PageMetaSchema });
}

/** A path id: anything up to 64 characters; an id that is not ours is simply not found. */
export const PathId = z.string().min(1).max(64);

export { IsoTimestamp } from '../domain/timestamps.ts';
