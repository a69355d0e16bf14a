/**
 * A record kind whose names are unique in the organization, compared case-insensitively (lists,
 * segments): the check before a write, and the unique index's violation, both answered as a 409 naming
 * /name.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { DomainError } from '../errors.ts';

type NamedTable = PgTable & { id: PgColumn; organizationId: PgColumn; name: PgColumn };

export function uniqueNames(table: NamedTable, what: string) {
  const nameTaken = () =>
    new DomainError('conflict', `another ${what} already has this name`, {
      fieldErrors: [{ pointer: '/name', message: `already the name of another ${what} (names compare case-insensitively)` }],
    });
  return {
    /** Runs a write, a unique violation of the name (a concurrent writer) answered as the 409. */
    async nameUnique<T>(work: () => Promise<T>): Promise<T> {
      try {
        return await work();
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken();
        throw err;
      }
    },
    /** Refuses a name another record of the organization (not `exceptId`) holds. */
    async checkNameFree(tx: Executor, organizationId: string, name: string, exceptId?: string): Promise<void> {
      const [holder] = await tx
        .select({ id: table.id })
        .from(table)
        .where(
          and(
            eq(table.organizationId, organizationId),
            sql`lower(${table.name}) = lower(${name})`,
            exceptId ? ne(table.id, exceptId) : undefined,
          ),
        )
        .limit(1);
      if (holder) throw nameTaken();
    },
  };
}
