/**
 * Whether the business may message a number on a channel, from the CRM's point of view: refused
 * while the contact is suppressed there (and the suppression has not lapsed), or while its consent
 * there is revoked. Templates get no exception: a template to an opted-out contact is refused too.
 */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import type { RefusalInputs } from '../messages/accept.ts';

export type SendPolicy = { allowed: true } | { allowed: false; code: 'suppressed' | 'consent_revoked'; reason: string };

export type PolicyRow = {
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
 * The decisive refusal for sending to a number on a channel, as a query that yields at most one
 * PolicyRow (so it can run alone, or for each message inside the statement that accepts messages,
 * joined laterally). It checks the contacts that hold the number (as their phone, `+` and digits,
 * or chat-app id, digits) against the channel and the scopes that cover it (`chatapp`, `all`): a
 * live suppression comes first; for consent, the latest statement of a contact among those scopes
 * decides (a revocation recorded at the same time as a grant wins).
 */
export function refusalQuery(i: RefusalInputs): SQL {
  return sql`with c as (
          select distinct contact_id from contact_identities
           where organization_id = ${i.organizationId} and source = ''
             and ((type = 'phone' and value = ${i.phone}) or (type = 'chatapp_id' and value = ${i.digits}))
        ),
        latest_consent as (
          select distinct on (k.contact_id) k.contact_id, k.channel, k.state, k.source, k.recorded_at
            from contact_consents k
           where k.contact_id in (select contact_id from c)
             and k.channel in (${i.channelId}, 'chatapp', 'all')
           order by k.contact_id, k.recorded_at desc, (k.state = 'revoked') desc
        )
        select kind, contact_id, channel, reason, state, source, at from (
          select 0 as rank, 'suppression' as kind, s.contact_id, s.channel, s.reason, null as state, null as source, s.expires_at as at
            from contact_suppressions s
           where s.contact_id in (select contact_id from c)
             and s.channel in (${i.channelId}, 'chatapp', 'all')
             and (s.expires_at is null or s.expires_at > ${i.at})
          union all
          select 1, 'consent', contact_id, channel, null, state, source, recorded_at
            from latest_consent where state = 'revoked'
        ) refusals
        order by rank, at desc nulls first
        limit 1`;
}

/** Why a refusal row refuses, in words for the problem body. */
export function explainRefusal(row: PolicyRow, isTemplate: boolean): Extract<SendPolicy, { allowed: false }> {
  if (row.kind === 'suppression') {
    const until = row.at ? ` until ${new Date(row.at).toISOString()}` : '';
    return { allowed: false, code: 'suppressed', reason: `the contact is suppressed on ${scopeLabel(row.channel)}${until}: ${row.reason}` };
  }
  const source = row.source ? ` (source: ${row.source})` : '';
  const template = isTemplate ? '; templates are refused too' : '';
  return {
    allowed: false,
    code: 'consent_revoked',
    reason: `the contact revoked consent for ${scopeLabel(row.channel)} at ${new Date(row.at!).toISOString()}${source}${template}`,
  };
}

/** Runs refusalQuery on its own. */
export async function checkSendPolicy(
  tx: Executor,
  organizationId: string,
  input: { phone: string; channelId: string; isTemplate: boolean; at: Date },
): Promise<SendPolicy> {
  const inputs: RefusalInputs = {
    organizationId: sql`${organizationId}::uuid`,
    phone: sql`${input.phone}`,
    digits: sql`${input.phone.replace(/^\+/, '')}`,
    channelId: sql`${input.channelId}`,
    at: sql`${input.at.toISOString()}::timestamptz`,
  };
  const [row] = await queryRows<PolicyRow>(tx, refusalQuery(inputs));
  return row ? explainRefusal(row, input.isTemplate) : { allowed: true };
}

/** The rules as the messages module takes them (see MessageDeps.sendPolicy). */
export const sendPolicy = { refusalQuery, explain: explainRefusal };

/**
 * A marketing template to a contact who opted out of marketing (a live `marketing` suppression: a STOP,
 * the template's opt-out button, the phone's own control, or an operator): refused with code `opted_out`.
 * Other sends to the contact are not (docs/crm.md "Opt-out by message"). Undefined when it may be sent.
 */
export async function marketingOptOutRefusal(
  db: Executor,
  organizationId: string,
  input: { channelId: string; template: { name: string; language: string }; phone: string; at: Date },
): Promise<{ code: 'opted_out'; reason: string } | undefined> {
  const [row] = await queryRows<{ reason: string }>(
    db,
    sql`select s.reason from contact_suppressions s
         where s.channel = 'marketing' and (s.expires_at is null or s.expires_at > ${input.at.toISOString()}::timestamptz)
           and s.contact_id in (select contact_id from contact_identities
                                 where organization_id = ${organizationId}::uuid and source = ''
                                   and ((type = 'phone' and value = ${input.phone}) or (type = 'chatapp_id' and value = ${input.phone.replace(/^\+/, '')})))
           and exists (select 1 from templates t
                        where t.organization_id = ${organizationId}::uuid and t.channel_id = ${input.channelId}::uuid
                          and t.name = ${input.template.name} and t.language = ${input.template.language} and upper(t.category) = 'MARKETING')
         limit 1`,
  );
  return row
    ? { code: 'opted_out', reason: `the contact opted out of marketing messages (${row.reason}); a marketing template is refused` }
    : undefined;
}
