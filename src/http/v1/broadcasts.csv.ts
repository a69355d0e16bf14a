/**
 * A broadcast's recipients as CSV (GET /v1/broadcasts/{id}/recipients with Accept: text/csv or
 * format=csv): every recipient of the status in send order, read a page at a time by cursor and
 * written through csv-stringify as the client takes it (a stream: memory stays one page whatever
 * the audience).
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Executor } from '../../db/client.ts';
import { listRecipients, type RecipientStatus } from '../../domain/broadcasts/recipients.ts';
import type { Actor } from '../../domain/actor.ts';
import { presentRecipient } from './broadcasts.presenters.ts';

/** Recipients read per page. */
const PAGE = 1000;

const COLUMNS = [
  'id',
  'contact_id',
  'phone',
  'status',
  'reason',
  'error_code',
  'variant',
  'message_id',
  'sent_at',
  'replied_at',
  'parameters',
  'updated_at',
] as const;

export const RECIPIENTS_CSV_EXAMPLE = `${COLUMNS.join(',')}
0190a5b3-aaaa-7e4f-8a1b-2c3d4e5f6a7b,0190a5b3-bbbb-7e4f-8a1b-2c3d4e5f6a7b,+4930111111,read,,,0,0190a5b3-cccc-7e4f-8a1b-2c3d4e5f6a7b,2025-06-10T09:00:01.000Z,,"[""Ada""]",2025-06-10T09:14:02.000Z
`;

/** Whether an Accept header prefers CSV to JSON (a plain `text/csv` among what it takes). */
export function wantsCsv(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => part.split(';')[0]!.trim().toLowerCase() === 'text/csv');
}

async function* rows(deps: { db: Executor }, actor: Actor, query: { broadcastId: string; status?: RecipientStatus }) {
  let cursor: string | undefined;
  do {
    const page = await listRecipients(deps, actor, { ...query, limit: PAGE, cursor });
    for (const r of page.items) {
      const p = presentRecipient(r);
      yield { ...p, parameters: p.parameters ? JSON.stringify(p.parameters) : null };
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/** The recipients as a CSV byte stream (a header line, then one line each). */
export function recipientsCsv(deps: { db: Executor }, actor: Actor, query: { broadcastId: string; status?: RecipientStatus }): Readable {
  const csv = stringify({ header: true, columns: [...COLUMNS] });
  const source = Readable.from(rows(deps, actor, query));
  source.on('error', (err) => csv.destroy(err));
  return source.pipe(csv);
}
