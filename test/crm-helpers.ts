/** Helpers the CRM tests share: the event log read on through GET /v1/events, records made through the API, a 400 naming a field. */
import assert from 'node:assert/strict';
import { eventually } from './eventually.ts';
import { request, type ApiResponse, type TestServer } from './harness.ts';

export type LoggedEvent = { type: string; data: Record<string, any> };

/**
 * The organization's event log read on from now (GET /v1/events, commit order; the server needs its
 * worker, which sequences events): take(n) waits until at least n more events are listed and returns
 * every one that came, so an unexpected extra shows in the comparison.
 */
export async function eventTail(server: TestServer, key = server.apiKey) {
  let cursor: string | undefined;
  const read = async () => {
    const res = await request(server, 'GET', `/v1/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { key });
    assert.equal(res.status, 200, res.text);
    cursor = res.body.meta.next_cursor;
    return res.body as { data: Array<{ type: string; data: Record<string, any> }>; meta: { has_more: boolean } };
  };
  while ((await read()).meta.has_more) {
    // read to the end of the log
  }
  return {
    async take(n: number): Promise<LoggedEvent[]> {
      const got: LoggedEvent[] = [];
      await eventually(`${n} more events`, async () => {
        for (let page = await read(); ; page = await read()) {
          got.push(...page.data.map((e) => ({ type: e.type, data: e.data })));
          if (!page.meta.has_more) break;
        }
        return got.length >= n;
      });
      return got;
    },
  };
}

/** A CRM record event's body. */
export function recordEvent(
  change: 'created' | 'updated' | 'deleted',
  kind: string,
  id: string,
  name: string | null,
  organizationId: string,
) {
  return {
    type: `crm.record.${change}`,
    data: { object_kind: kind, record_id: id, display_name: name, organization_id: organizationId },
  };
}

/** A 400 (or another status) problem naming the field at the pointer, in the location. */
export function assertNames(res: ApiResponse, status: number, pointer: string, location = 'body'): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
  assert.ok(
    (res.body.errors as Array<{ pointer: string; location: string }> | undefined)?.some(
      (e) => e.pointer === pointer && e.location === location,
    ),
    `names ${location} ${pointer}: ${res.text}`,
  );
}

/** Creates a record through the API (201) and returns it. */
export async function created(server: TestServer, path: string, body: unknown, key = server.apiKey): Promise<Record<string, any>> {
  const res = await request(server, 'POST', path, { key, body });
  assert.equal(res.status, 201, `POST ${path}: ${res.text}`);
  return res.body.data;
}

/** Every page of a list (from the path's cursor, if it has one), following next_cursor. */
export async function allPages(server: TestServer, path: string, key = server.apiKey): Promise<Array<Record<string, any>>> {
  const items: Array<Record<string, any>> = [];
  let cursor: string | null = null;
  const url = new URL(path, 'http://x');
  do {
    if (cursor) url.searchParams.set('cursor', cursor);
    const res: ApiResponse = await request(server, 'GET', `${url.pathname}${url.search}`, { key });
    assert.equal(res.status, 200, res.text);
    items.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return items;
}
