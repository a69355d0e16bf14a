/**
 * The create flow's preview and send time: the body filled for a sample contact the way the server fills
 * each recipient's parameters (defaults, custom fields, the phone), and a time typed in the organization's
 * zone read as the right instant on both sides of a DST change, and back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { instantInZone, localInZone, previewBody } from './preview.ts';

const ada = { phone_number: '+4930111111', name: 'Ada', email: null, custom_fields: { plan: 'pro', visits: 3 } };

test('the preview fills each {{n}} from the contact, takes the default when a field is empty, and leaves a missing variable shown', () => {
  const body = 'Hi {{1}}, your {{2}} plan ({{3}}) — call {{4}}. {{5}}';
  const variables = [
    '{{contact.name|there}}',
    '{{contact.custom.plan|basic}}',
    '{{contact.email|no email}} / {{contact.custom.visits|0}}',
    '{{contact.phone}}',
  ];
  assert.equal(previewBody(body, variables, ada), 'Hi Ada, your pro plan (no email / 3) — call +4930111111. {{5}}');
  assert.equal(previewBody(body, variables, undefined), 'Hi there, your basic plan (no email / 0) — call {{4}}. {{5}}');
  assert.equal(previewBody('Hi {{ 1 }}', ['{{contact.name|there}}'], { ...ada, name: '  ' }), 'Hi there');
});

test('a time typed in the organization’s zone is that zone’s wall clock, DST included, and reads back the same', () => {
  assert.equal(instantInZone('2026-06-10T09:00', 'Europe/Paris')?.toISOString(), '2026-06-10T07:00:00.000Z');
  assert.equal(instantInZone('2026-12-10T09:00', 'Europe/Paris')?.toISOString(), '2026-12-10T08:00:00.000Z');
  assert.equal(instantInZone('2026-03-08T01:30', 'America/New_York')?.toISOString(), '2026-03-08T06:30:00.000Z');
  assert.equal(instantInZone('2026-06-10T09:00', 'UTC')?.toISOString(), '2026-06-10T09:00:00.000Z');
  assert.equal(instantInZone('10/06/2026 09:00', 'UTC'), undefined);
  assert.equal(localInZone('2026-06-10T07:00:00.000Z', 'Europe/Paris'), '2026-06-10T09:00');
  assert.equal(localInZone('2026-12-31T23:30:00.000Z', 'Asia/Tokyo'), '2027-01-01T08:30');
});
