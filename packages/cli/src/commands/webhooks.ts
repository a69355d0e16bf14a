/**
 * `parley webhooks replay` (send messages again to the endpoints where they have not succeeded: named
 * by id, or every failed delivery since a time) and `parley trigger EVENT` (a test delivery of the
 * type's example body to an endpoint, or to each endpoint).
 */
import type { Parley } from '@parley/sdk';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import type { Action } from '../program.ts';

type RetryResult = {
  message_id: string;
  retried: Array<{ delivery_id: string; endpoint_id: string }>;
  skipped: Array<{ endpoint_id: string; reason: string }>;
};
type TestResult = {
  delivery_id: string;
  message_id: string;
  event_type: string;
  succeeded: boolean;
  attempt: { status_code: number | null; duration_ms: number; error: string | null };
};
type ReplayOptions = { failedSince?: string; until?: string; endpoint?: string };

/** A time as given: ISO 8601, or a duration back from now (30m, 2h, 7d). */
export function parseSince(value: string, now = Date.now()): string {
  const ago = /^(\d+)\s*(s|m|h|d)$/.exec(value.trim());
  if (ago) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now - Number(ago[1]) * unit).toISOString();
  }
  const at = new Date(value);
  if (Number.isNaN(at.getTime()))
    throw usageError(`--failed-since: ${JSON.stringify(value)} is neither a time (ISO 8601) nor a duration (30m, 2h, 7d)`);
  return at.toISOString();
}

/** The ids of the messages with a failed delivery since the time (to the endpoint, when named), oldest first. */
async function failedMessages(parley: Parley, since: string, until: string | undefined, endpointId: string | undefined): Promise<string[]> {
  const ids = new Set<string>();
  const query = {
    status: 'failed' as const,
    since,
    ...(until ? { until } : {}),
    ...(endpointId ? { endpoint_id: endpointId } : {}),
    limit: 100,
  };
  for await (const delivery of parley.webhooks.listDeliveries(query)) {
    const d = delivery as { message_id: string; test: boolean };
    if (!d.test) ids.add(d.message_id);
  }
  return [...ids].reverse();
}

export function registerWebhooks(program: Command, action: Action): void {
  const webhooks = program.command('webhooks').description('Webhook deliveries');
  webhooks
    .command('replay')
    .description('Send messages again where they have not succeeded: by id, or every failed one since a time')
    .argument('[message-ids...]', 'the webhook-id (event id) of each message to send again')
    .option('--failed-since <time>', 'every message with a failed delivery since then (ISO 8601, or 30m, 2h, 7d ago)')
    .option('--until <time>', 'with --failed-since: failed before then')
    .option('--endpoint <id>', 'only to this endpoint')
    .action(
      action(async (ctx: Context, options: ReplayOptions, ids: string[]) => {
        if (ids.length > 0 && options.failedSince) throw usageError('give message ids or --failed-since, not both');
        if (ids.length === 0 && !options.failedSince) throw usageError('give the message ids to replay, or --failed-since TIME');
        if (options.until && !options.failedSince) throw usageError('--until goes with --failed-since');
        const parley = ctx.client();
        const messageIds = options.failedSince
          ? await failedMessages(parley, parseSince(options.failedSince), options.until && parseSince(options.until), options.endpoint)
          : ids;
        const results: RetryResult[] = [];
        for (const messageId of messageIds) {
          const answer = await parley.webhooks.retryDelivery({
            messageID: messageId,
            body: options.endpoint ? { endpoint_id: options.endpoint } : {},
          });
          results.push(answer.data as RetryResult);
        }
        ctx.output.result({ messages: results }, () => {
          if (results.length === 0) ctx.output.line('Nothing to replay.');
          for (const r of results) {
            const skipped = r.skipped.map((s) => `${s.endpoint_id}: ${s.reason}`).join(', ');
            ctx.output.line(`${r.message_id}  retried ${r.retried.length}${skipped ? `, skipped ${skipped}` : ''}`);
          }
        });
      }),
    );

  program
    .command('trigger')
    .description("Send a test delivery of an event type's example body to an endpoint (default: each endpoint)")
    .argument('<event>', 'the event type, e.g. message.status_update')
    .option('--endpoint <id>', 'the endpoint (default: every endpoint of the organization)')
    .action(
      action(async (ctx: Context, options: { endpoint?: string }, eventType: string) => {
        const parley = ctx.client();
        const endpointIds = options.endpoint
          ? [options.endpoint]
          : ((await parley.webhooks.getSettings()).data.endpoints as Array<{ id: string }>).map((e) => e.id);
        if (endpointIds.length === 0) {
          throw usageError('the organization has no webhook endpoint: create one (POST /v1/settings/developer/webhooks/endpoints)');
        }
        const results: Array<TestResult & { endpoint_id: string }> = [];
        for (const endpointId of endpointIds) {
          const answer = await parley.webhooks.testEndpoint({ endpointID: endpointId, body: { event_type: eventType as never } });
          results.push({ endpoint_id: endpointId, ...(answer.data as TestResult) });
        }
        ctx.output.result({ deliveries: results }, () =>
          ctx.output.table(results, [
            { header: 'endpoint', value: (r) => r.endpoint_id },
            { header: 'event', value: (r) => r.event_type },
            { header: 'webhook-id', value: (r) => r.message_id },
            { header: 'status', value: (r) => r.attempt.status_code ?? r.attempt.error },
            { header: 'ms', value: (r) => r.attempt.duration_ms },
          ]),
        );
        const failed = results.filter((r) => !r.succeeded);
        if (failed.length > 0) {
          throw new CliError(
            `${failed.length} of ${results.length} test deliveries were not answered 2xx`,
            EXIT.failed,
            {
              endpoint_ids: failed.map((r) => r.endpoint_id),
            },
            { resultPrinted: true },
          );
        }
      }),
    );
}
