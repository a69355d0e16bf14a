import assert from 'node:assert/strict';
import { test } from 'node:test';
import { windowClosed } from './window.ts';

test('the window closes at window_expires_at, never opened counts as closed, and channels without a window never close', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  assert.equal(windowClosed({ window_expires_at: '2026-11-25T12:00:01Z' }, 24, now), false);
  assert.equal(windowClosed({ window_expires_at: '2026-11-25T12:00:00Z' }, 24, now), true);
  assert.equal(windowClosed({ window_expires_at: null }, 24, now), true);
  assert.equal(windowClosed({ window_expires_at: null }, null, now), false, 'a gateway channel has no window');
  assert.equal(windowClosed({ window_expires_at: '2026-11-24T00:00:00Z' }, undefined, now), false, 'not known yet: nothing is hidden');
});
