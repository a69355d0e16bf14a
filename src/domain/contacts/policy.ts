/**
 * Whether the business may message a number on a channel, from the CRM's point of view: refused
 * while the contact is suppressed there (and the suppression has not lapsed), or while its consent
 * there is revoked. Templates get no exception: a template to an opted-out contact is refused too.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';

export type SendPolicy = { allowed: true } | { allowed: false; code: 'suppressed' | 'consent_revoked'; reason: string };

type PolicyRow = {
  kind: 'suppression' | 'consent';
  contact_id: string;
  channel: string;
  reason: string | null;
  state: string | null;
  source: string | null;
  at: Date | string | null;
};

function scopeLabel(channel: string): string {
  if (channel === 'all') return 'all channels';
  if (channel === 'chatapp') return 'every chat-app channel';
  return 'this channel';
}

/**
 * Checks the contacts that hold the number (as their phone or chat-app id) against the channel and
 * the scopes that cover it (`chatapp`, `all`). For consent, the latest statement among the scopes
 * that cover the channel decides (a revocation recorded at the same time as a grant wins).
 */
export async function checkSendPolicy(
  tx: Executor,
  organizationId: string,
  input: { phone: string; channelId: string; isTemplate: boolean; at: Date },
): Promise<SendPolicy> {
  const digits = input.phone.replace(/^\+/, '');
  const rows = await queryRows<PolicyRow>(
    tx,
    sql`with c as (
          select distinct contact_id from contact_identities
           where organization_id = ${organizationId} and source = ''
             and ((type = 'phone' and value = ${input.phone}) or (type = 'chatapp_id' and value = ${digits}))
        )
        select 'suppression' as kind, s.contact_id, s.channel, s.reason, null as state, null as source, s.expires_at as at
          from contact_suppressions s
         where s.contact_id in (select contact_id from c)
           and s.channel in (${input.channelId}, 'chatapp', 'all')
           and (s.expires_at is null or s.expires_at > ${input.at.toISOString()}::timestamptz)
        union all
        select 'consent', k.contact_id, k.channel, null, k.state, k.source, k.recorded_at
          from contact_consents k
         where k.contact_id in (select contact_id from c)
           and k.channel in (${input.channelId}, 'chatapp', 'all')`,
  );

  const suppression = rows.find((r) => r.kind === 'suppression');
  if (suppression) {
    const until = suppression.at ? ` until ${new Date(suppression.at).toISOString()}` : '';
    return {
      allowed: false,
      code: 'suppressed',
      reason: `the contact is suppressed on ${scopeLabel(suppression.channel)}${until}: ${suppression.reason}`,
    };
  }

  const latest = new Map<string, PolicyRow>();
  for (const row of rows) {
    if (row.kind !== 'consent') continue;
    const seen = latest.get(row.contact_id);
    const t = new Date(row.at!).getTime();
    const seenAt = seen ? new Date(seen.at!).getTime() : -Infinity;
    if (!seen || t > seenAt || (t === seenAt && row.state === 'revoked')) latest.set(row.contact_id, row);
  }
  const revoked = [...latest.values()].find((r) => r.state === 'revoked');
  if (revoked) {
    const source = revoked.source ? ` (source: ${revoked.source})` : '';
    const template = input.isTemplate ? '; templates are refused too' : '';
    return {
      allowed: false,
      code: 'consent_revoked',
      reason: `the contact revoked consent for ${scopeLabel(revoked.channel)} at ${new Date(revoked.at!).toISOString()}${source}${template}`,
    };
  }
  return { allowed: true };
}
