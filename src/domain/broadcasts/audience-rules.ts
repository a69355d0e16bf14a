/**
 * Audience rules that depend on the channel and template rather than the contact's own records: the
 * provider's restrictions (since April 2025 the official provider refuses marketing templates to US
 * numbers, +1: skipped as provider_restricted), and, when the broadcast asks, recipients in an open
 * conversation assigned to a person (skipped as open_conversation: a promotion would cut into it).
 */
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { channels, templates } from '../../db/schema.ts';
import { phoneDigits } from '../../lib/phone.ts';
import { isBusinessApi } from './sending-rules.ts';

export type RuleBroadcast = {
  channelId: string;
  templateName?: string;
  templateLanguage?: string;
  skipOpenConversations?: boolean;
};

/** Country calling codes the official provider delivers no marketing template to. */
const MARKETING_RESTRICTED_PREFIXES = ['+1'];

/** The reason each pending number (E.164) is skipped by these rules, by number. */
export async function ruleSkips(
  db: Executor,
  organizationId: string,
  broadcast: RuleBroadcast,
  phones: string[],
): Promise<Map<string, 'provider_restricted' | 'open_conversation'>> {
  const out = new Map<string, 'provider_restricted' | 'open_conversation'>();
  if (phones.length === 0) return out;
  if (
    broadcast.templateName &&
    broadcast.templateLanguage &&
    phones.some((p) => MARKETING_RESTRICTED_PREFIXES.some((x) => p.startsWith(x)))
  ) {
    const [row] = await db
      .select({ platform: channels.platform, category: templates.category })
      .from(channels)
      .innerJoin(
        templates,
        and(
          eq(templates.channelId, channels.id),
          eq(templates.name, broadcast.templateName),
          eq(templates.language, broadcast.templateLanguage),
        ),
      )
      .where(and(eq(channels.id, broadcast.channelId), eq(channels.organizationId, organizationId)))
      .limit(1);
    if (row && isBusinessApi(row.platform) && row.category.toUpperCase() === 'MARKETING') {
      for (const p of phones) if (MARKETING_RESTRICTED_PREFIXES.some((x) => p.startsWith(x))) out.set(p, 'provider_restricted');
    }
  }
  if (broadcast.skipOpenConversations) {
    const digits = JSON.stringify(phones.map(phoneDigits));
    const open = await queryRows<{ peer_phone: string }>(
      db,
      sql`select distinct peer_phone from conversations
           where organization_id = ${organizationId}::uuid and channel_id = ${broadcast.channelId}::uuid
             and status = 'open' and assignee_user_id is not null
             and peer_phone in (select jsonb_array_elements_text(${digits}::jsonb))`,
    );
    const openSet = new Set(open.map((r) => r.peer_phone));
    for (const p of phones) if (!out.has(p) && openSet.has(phoneDigits(p))) out.set(p, 'open_conversation');
  }
  return out;
}
