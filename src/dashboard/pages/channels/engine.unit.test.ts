/**
 * The engine a channel runs on, in words, where the dashboard shows channels: the channel page's
 * details (the platform without a guess at the engine, then the engine itself) and the channel list;
 * and a connection the network kept from the chat service: its cause and the next try, in the health.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setUpDom } from '../../../../test/dashboard/dom.ts';
import type { ChannelView } from './api.ts';

const { render, screen, within } = await setUpDom();
const { createElement: h } = await import('react');
const { MemoryRouter } = await import('react-router');
const { ChannelDetails } = await import('./ChannelDetails.tsx');
const { ChannelTable, HealthSummary } = await import('./ChannelsPage.tsx');
const { formatDate } = await import('../../format.ts');

const NOW = '2025-05-01T10:00:00.000Z';

function channel(engine: ChannelView['engine'], extra: Partial<ChannelView> = {}): ChannelView {
  const official = engine === 'official';
  return {
    id: `0196a000-0000-7000-8000-00000000000${['official', 'embedded', 'http_gateway', 'sandbox'].indexOf(engine)}`,
    platform: official ? 'chatapp_official' : 'chatapp_unofficial',
    engine,
    name: `${engine} channel`,
    status: 'disconnected',
    status_reason: 'not paired yet',
    status_changed_at: NOW,
    display_phone_number: null,
    sandbox: engine === 'sandbox',
    settings: engine === 'http_gateway' ? { gateway_base: 'https://gw.example.com', session: 's' } : {},
    credentials_set: [],
    health: {
      last_error_code: null,
      last_error_message: null,
      last_error_at: null,
      held_until: null,
      reconnect_attempts: 0,
      next_retry_at: null,
      last_checked_at: null,
    },
    limits: { messaging_tier: null, messaging_tier_source: null, daily_broadcast_cap: null },
    created_at: NOW,
    updated_at: NOW,
    ...extra,
  };
}

/** The value of a term of the details list. */
function detail(term: string): string {
  const dt = screen.getAllByRole('term').find((t) => t.textContent === term);
  assert.ok(dt, `the details list a ${term}`);
  return dt.nextElementSibling?.textContent ?? '';
}

test("the channel page names the engine in words: a real phone on the embedded engine is not 'via a gateway' nor 'its own provider'", () => {
  render(h(ChannelDetails, { channel: channel('embedded') }));
  assert.equal(detail('Platform'), 'ChatApp (linked device)');
  assert.match(detail('Engine'), /^Embedded: a phone paired with Parley itself/);
  assert.doesNotMatch(document.body.textContent ?? '', /via a gateway|Its own provider/);
});

test('each engine in words: the official API, an HTTP gateway (with its address), the built-in sandbox', () => {
  const { rerender } = render(h(ChannelDetails, { channel: channel('official') }));
  assert.equal(detail('Platform'), 'ChatApp (official API)');
  assert.match(detail('Engine'), /official business API/i);
  rerender(h(ChannelDetails, { channel: channel('http_gateway') }));
  assert.equal(detail('Engine'), 'HTTP gateway of your own, at https://gw.example.com');
  rerender(h(ChannelDetails, { channel: channel('sandbox') }));
  assert.match(detail('Engine'), /built-in sandbox/);
});

test("the channel list shows each channel's engine beside its platform", () => {
  render(h(MemoryRouter, null, h(ChannelTable, { channels: [channel('embedded'), channel('http_gateway')] })));
  const rows = screen.getAllByRole('row').slice(1);
  assert.match(within(rows[0]!).getAllByRole('cell')[1]!.textContent ?? '', /ChatApp \(linked device\).*Embedded/);
  assert.match(within(rows[1]!).getAllByRole('cell')[1]!.textContent ?? '', /HTTP gateway/);
});

test('health of an engine that cannot reach the chat network: the cause, the attempts and when it tries next', () => {
  const next = '2025-05-01T10:01:30.000Z';
  render(
    h(HealthSummary, {
      health: {
        last_error_code: 'dns_failure',
        last_error_message: `cannot reach the chat network: the DNS lookup of web.whatsapp.com failed (ENOTFOUND); reconnect attempt 2 at ${next}`,
        last_error_at: NOW,
        held_until: null,
        reconnect_attempts: 2,
        next_retry_at: next,
        last_checked_at: null,
      },
    }),
  );
  const text = document.body.textContent ?? '';
  assert.match(text, /dns_failure/);
  assert.match(text, /DNS lookup of web\.whatsapp\.com failed/);
  assert.ok(text.includes(`2 reconnect attempts; next try ${formatDate(next)}`), text);
  assert.doesNotMatch(text, /failed checks/);
});
