/**
 * `parley listen --forward-to URL`: the organization's events, read live from the events stream, each
 * re-signed with a local signing secret and POSTed to a local URL with the headers a real delivery has
 * (docs/webhooks.md), so a receiver under development gets what production would send it, without a
 * public URL. The secret (whsec_…) is made once and kept in the config file: the same on every run,
 * so the receiver's configuration does not change. After a drop the stream resumes from the last
 * event id (the SDK's events.stream), so events emitted meanwhile arrive late, not never.
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { Webhook } from 'standardwebhooks';
import type { Context } from '../context.ts';
import { usageError } from '../errors.ts';
import { expandPatterns, splitPatterns } from '../event-types.ts';
import type { Action } from '../program.ts';
import { untilInterrupted } from '../signals.ts';

type ListenOptions = { forwardTo: string; events?: string; timeout: string; after?: string };

/** The user agent of the service's own deliveries (src/domain/webhooks/send.ts). */
const USER_AGENT = 'Parley-Webhooks/1.0 (+https://www.standardwebhooks.com)';

/** The local signing secret: the stored one, else a new one (Standard Webhooks' form: whsec_ + base64 of 24 bytes), stored. */
export function listenSecret(ctx: Context): string {
  const stored = ctx.store.read().listen_secret;
  if (stored) return stored;
  let secret = '';
  ctx.store.update((config) => {
    // Another run may have made one meanwhile: keep that one.
    config.listen_secret ??= `whsec_${randomBytes(24).toString('base64')}`;
    secret = config.listen_secret;
  });
  return secret;
}

/** The headers of a delivery of the event, signed with the secret at this moment. */
export function deliveryHeaders(webhook: Webhook, event: { id: string; type: string }, body: string, at: Date): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = webhook.sign(event.id, at, body);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': event.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signature,
    'webhook-event-type': event.type,
    'x-parley-webhook-id': event.id,
    'x-parley-webhook-timestamp': timestamp,
    'x-parley-webhook-signature': signature,
    'x-parley-event-type': event.type,
  };
}

/**
 * A fetch that tells when the events stream has opened (its answer's headers came: the service has
 * fixed where the stream starts, so whatever is committed from then on is forwarded). The SDK's stream
 * gives no such signal itself; its requests go through the fetch it is given.
 */
export function noticingStreamOpens(onOpen: () => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (response.ok && new URL(url).pathname === '/v1/events/stream') onOpen();
    return response;
  };
}

type Forwarded = { status: number | null; error: string | null; duration_ms: number };

async function forward(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Forwarded> {
  const started = performance.now();
  try {
    const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return { status: response.status, error: null, duration_ms: Math.round(performance.now() - started) };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    const error = (err as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (cause?.code ?? (err as Error).message);
    return { status: null, error, duration_ms: Math.round(performance.now() - started) };
  }
}

export function registerListen(program: Command, action: Action): void {
  program
    .command('listen')
    .description("Forward the service's events, signed with a local secret, to a local URL")
    .requiredOption('--forward-to <url>', 'where to POST each event (e.g. http://localhost:3000/webhooks)')
    .option('--events <types>', 'only these event types, comma-separated; * is a wildcard (e.g. message.*,channel.status_update)')
    .option('--timeout <ms>', 'how long one POST may take', '10000')
    .option(
      '--after <cursor>',
      'start after this event (a cursor printed with --json, or GET /v1/events meta.next_cursor): replay what came since',
    )
    .action(
      action(async (ctx: Context, options: ListenOptions) => {
        if (!URL.canParse(options.forwardTo) || !/^https?:$/.test(new URL(options.forwardTo).protocol)) {
          throw usageError(`--forward-to: ${JSON.stringify(options.forwardTo)} is not an http(s) URL`);
        }
        const timeoutMs = Number(options.timeout);
        if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw usageError('--timeout: a positive number of milliseconds');
        const connection = ctx.connection();
        let opens = 0;
        let announce: (count: number) => void = () => {};
        const parley = ctx.client(connection, { fetch: noticingStreamOpens(() => announce(++opens)) });
        const patterns = splitPatterns(options.events);
        const needsCatalogue = patterns.some((p) => p.includes('*') && p !== '*');
        const catalogue = needsCatalogue ? (await parley.webhooks.getSettings()).data.event_types.map((t: { type: string }) => t.type) : [];
        const types = expandPatterns(patterns, catalogue);
        const secret = listenSecret(ctx);
        const webhook = new Webhook(secret);

        // Ready once the stream is open, not before: a stream without --after starts where it opens.
        announce = (count: number) => {
          if (count > 1) {
            ctx.output.note('reconnected to the events stream; resumed after the last event received');
            return;
          }
          ctx.output.item(
            { ready: true, base_url: connection.baseUrl, forward_to: options.forwardTo, events: types ?? '*', signing_secret: secret },
            [
              `Ready. Forwarding events of ${connection.baseUrl} to ${options.forwardTo}${types ? ` (${types.join(', ')})` : ''}.`,
              `Signing secret: ${secret}  (the same on every run; verify deliveries with it)`,
              'Ctrl-C to stop.',
            ].join('\n'),
          );
        };

        await untilInterrupted(async (signal) => {
          const stream = parley.events.stream({ types, signal, lastEventId: options.after });
          for await (const event of stream) {
            const body = JSON.stringify(event.data);
            const outcome = await forward(options.forwardTo, deliveryHeaders(webhook, event, body, new Date()), body, timeoutMs);
            const shown = outcome.status === null ? `error: ${outcome.error}` : String(outcome.status);
            ctx.output.item(
              { id: event.id, type: event.type, created_at: event.created_at, cursor: stream.lastEventId ?? null, ...outcome },
              `${new Date().toISOString()}  ${event.type.padEnd(24)} ${event.id}  → ${shown} (${outcome.duration_ms} ms)`,
            );
          }
        });
      }),
    );
}
