/**
 * `parley channels list` and `parley channels qr ID`: the organization's channels, and pairing a
 * linked-device channel: connect it, draw its QR in the terminal (qrcode), redraw it when the session
 * issues a new one, until the channel is connected.
 */
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import type { Action } from '../program.ts';
import { untilInterrupted } from '../signals.ts';

type Channel = {
  id: string;
  name: string;
  platform: string;
  status: string;
  status_reason?: string | null;
  display_phone_number?: string | null;
};
type Qr = { qr: string; expires_at: string };

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

export function registerChannels(program: Command, action: Action): void {
  const channels = program.command('channels').description('List channels, pair a linked-device channel');

  channels
    .command('list')
    .description("The organization's channels")
    .action(
      action(async (ctx: Context) => {
        const parley = ctx.client();
        const all: Channel[] = [];
        for await (const channel of parley.channels.list({})) all.push(channel as Channel);
        ctx.output.result(all, () =>
          ctx.output.table(all, [
            { header: 'id', value: (c) => c.id },
            { header: 'name', value: (c) => c.name },
            { header: 'platform', value: (c) => c.platform },
            { header: 'status', value: (c) => c.status },
            { header: 'number', value: (c) => c.display_phone_number },
          ]),
        );
      }),
    );

  channels
    .command('qr')
    .description('Pair a linked-device channel: draw its QR code, redrawn as it changes, until connected')
    .argument('<id>', 'the channel id')
    .option('--interval <ms>', 'how often to look for a new QR and the status', '1000')
    .action(
      action(async (ctx: Context, options: { interval: string }, id: string) => {
        const everyMs = Math.max(200, Number(options.interval) || 1000);
        const parley = ctx.client();
        let channel = (await parley.channels.get({ channelID: id })).data as Channel;
        if (channel.status !== 'connected' && channel.status !== 'pairing') {
          channel = ((await parley.channels.connect({ channelID: id, body: {} })).data as { channel: Channel }).channel;
        }
        let shown: string | undefined;
        let drawnLines = 0;
        const tty = Boolean(process.stdout.isTTY) && !ctx.output.json;
        await untilInterrupted(async (signal) => {
          while (!signal.aborted && channel.status === 'pairing') {
            const qr = await parley.channels.getQr({ channelID: id }).then(
              (r: { data: Qr }) => r.data,
              () => undefined, // not scanning yet (409), or between two QRs
            );
            if (qr && qr.qr !== shown) {
              shown = qr.qr;
              const { default: QRCode } = await import('qrcode');
              const drawing = await QRCode.toString(qr.qr, { type: 'terminal', small: true });
              const text = `Scan with the phone (Linked devices → Link a device); valid until ${qr.expires_at}:\n${drawing}`;
              // In a terminal the new code replaces the old one in place; elsewhere it follows it.
              if (tty && drawnLines > 0) process.stdout.write(`\x1b[${drawnLines}A\x1b[0J`);
              ctx.output.item({ channel_id: id, status: 'pairing', qr: qr.qr, expires_at: qr.expires_at }, text);
              drawnLines = text.split('\n').length;
            }
            await sleep(everyMs, signal);
            if (!signal.aborted) channel = (await parley.channels.get({ channelID: id })).data as Channel;
          }
        });
        if (channel.status === 'pairing') return; // interrupted
        ctx.output.item(
          {
            channel_id: id,
            status: channel.status,
            status_reason: channel.status_reason ?? null,
            number: channel.display_phone_number ?? null,
          },
          channel.status === 'connected'
            ? `Connected: ${channel.display_phone_number ?? channel.name}`
            : `The channel is ${channel.status}: ${channel.status_reason ?? ''}`,
        );
        if (channel.status !== 'connected') {
          throw new CliError(
            `channel ${id} did not connect: ${channel.status} (${channel.status_reason ?? 'no reason given'})`,
            EXIT.failed,
            undefined,
            {
              resultPrinted: true,
            },
          );
        }
      }),
    );
}
