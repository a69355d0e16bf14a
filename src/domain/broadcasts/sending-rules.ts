/**
 * What may hold a broadcast's sending back before a share, apart from its own pace (runner.ts): its
 * quiet hours (wait until they end), its template paused or disabled by the provider (the broadcast
 * pauses with the reason), and the channel's room in a moving 24 hours: on an official channel the
 * number's messaging tier (business-initiated conversations), on a linked-device channel its daily
 * broadcast cap. Recipients over the room are `deferred` to the window when room opens again.
 * Linked-device channels also get a randomized default pace (docs/broadcasts.md "Linked-device channels").
 */
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { channels, organizations, templates } from '../../db/schema.ts';
import { providerModule } from '../../providers/registry.ts';
import { quietUntil, type QuietHours } from './quiet-hours.ts';

/** A channel on a paired phone (a linked device: the embedded or gateway engine), which has no tiers but gets banned for bulk sends. */
export const isLinkedDevice = (platform: string) => providerModule(platform).connection === 'pairing';
/** A channel of the provider's business API (credentials), which has messaging tiers and the provider's restrictions. */
export const isBusinessApi = (platform: string) => providerModule(platform).connection === 'credentials';

/** The provider's code for a message refused by its per-user marketing limit (the recipient had enough marketing messages). */
export const MARKETING_LIMIT_CODE = '131049';

/** The messaging tiers (official): business-initiated conversations a number may open in a moving 24 hours. */
export const MESSAGING_TIERS = ['250', '1000', '2000', '10000', '100000', 'unlimited'] as const;
export type MessagingTier = (typeof MESSAGING_TIERS)[number];

/** The provider's names of its tiers (the phone number's `messaging_limit_tier`), as ours; TIER_50 counts as 250's floor. */
const PROVIDER_TIERS: Record<string, MessagingTier | '50'> = {
  TIER_50: '50',
  TIER_250: '250',
  TIER_1K: '1000',
  TIER_2K: '2000',
  TIER_10K: '10000',
  TIER_100K: '100000',
  TIER_UNLIMITED: 'unlimited',
};
export const tierOfProvider = (native: string | undefined): string | undefined => (native ? PROVIDER_TIERS[native] : undefined);

/** Stores the tier the provider reports for a channel's number, unless one was set through the API (which wins). */
export async function storeProviderTier(db: Executor, channelId: string, native: string | undefined): Promise<void> {
  const tier = tierOfProvider(native);
  if (!tier) return;
  await db
    .update(channels)
    .set({ messagingTier: tier, messagingTierSource: 'provider' })
    .where(and(eq(channels.id, channelId), sql`${channels.messagingTierSource} is distinct from 'api'`));
}

/** Linked-device channels: broadcast messages a moving 24 hours, when the channel sets no cap of its own. */
export const LINKED_DAILY_CAP = 1000;
/** Linked-device channels: recipients a minute when the broadcast sets no pace, and the spread of the wait between shares. */
export const LINKED_PER_MINUTE = 12;
export const LINKED_JITTER = 0.5;

const DAY_MS = 86_400_000;

export type Gate =
  | { kind: 'go'; room: number; window: Date | null; linked: boolean }
  | { kind: 'wait'; until: Date }
  | { kind: 'pause'; reason: string };

type GateBroadcast = {
  id: string;
  organizationId: string;
  channelId: string;
  templateName: string;
  templateLanguage: string;
  quietHours: QuietHours | null;
};

/** Whether the broadcast may send now, and how many recipients the channel's 24-hour room takes. */
export async function sendingGate(db: Executor, b: GateBroadcast, now: Date): Promise<Gate> {
  const quietEnd = b.quietHours ? quietUntil(b.quietHours, await organizationZone(db, b.organizationId), now) : null;
  if (quietEnd) return { kind: 'wait', until: quietEnd };
  const [template] = await db
    .select({ status: templates.status })
    .from(templates)
    .where(and(eq(templates.channelId, b.channelId), eq(templates.name, b.templateName), eq(templates.language, b.templateLanguage)))
    .limit(1);
  if (template && (template.status === 'paused' || template.status === 'disabled')) {
    return {
      kind: 'pause',
      reason: `template_${template.status}: the provider ${template.status} template ${b.templateName} (${b.templateLanguage})`,
    };
  }
  const [channel] = await db
    .select({ platform: channels.platform, tier: channels.messagingTier, cap: channels.dailyBroadcastCap })
    .from(channels)
    .where(eq(channels.id, b.channelId));
  if (!channel) return { kind: 'go', room: Number.POSITIVE_INFINITY, window: null, linked: false };
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  if (isLinkedDevice(channel.platform)) {
    const cap = channel.cap ?? LINKED_DAILY_CAP;
    const [used] = await queryRows<{ n: number; oldest: string | Date | null }>(
      db,
      sql`select count(*)::int as n, min(created_at) as oldest from messages
           where channel_id = ${b.channelId}::uuid and broadcast_id is not null and created_at > ${since}::timestamptz`,
    );
    return { kind: 'go', room: cap - used!.n, window: windowAfter(used!.oldest, now), linked: true };
  }
  if (!channel.tier || channel.tier === 'unlimited') return { kind: 'go', room: Number.POSITIVE_INFINITY, window: null, linked: false };
  // A business-initiated conversation per recipient a template opened in the moving 24 hours.
  const [used] = await queryRows<{ n: number; oldest: string | Date | null }>(
    db,
    sql`select count(*)::int as n, min(first_at) as oldest from (
          select to_phone, min(created_at) as first_at from messages
           where channel_id = ${b.channelId}::uuid and direction = 'outbound' and type = 'template'
             and created_at > ${since}::timestamptz
           group by to_phone) t`,
  );
  return { kind: 'go', room: Number(channel.tier) - used!.n, window: windowAfter(used!.oldest, now), linked: false };
}

/** The organization's time zone (its business hours' `time_zone`; UTC when it set none). */
async function organizationZone(db: Executor, organizationId: string): Promise<string> {
  const [org] = await db.select({ hours: organizations.businessHours }).from(organizations).where(eq(organizations.id, organizationId));
  const zone = (org?.hours as { time_zone?: unknown } | null)?.time_zone;
  return typeof zone === 'string' && zone !== '' ? zone : 'UTC';
}

/** When the oldest counted send leaves the moving 24 hours (room opens again); a minute from now when none is counted. */
function windowAfter(oldest: string | Date | null, now: Date): Date {
  return oldest ? new Date(new Date(oldest).getTime() + DAY_MS + 1000) : new Date(now.getTime() + 60_000);
}

/** The wait before a linked-device channel's next share: a minute spread by ±LINKED_JITTER at random, so sends have no fixed rhythm. */
export function jitteredMinute(random: () => number = Math.random): number {
  return Math.round(60_000 * (1 - LINKED_JITTER + 2 * LINKED_JITTER * random()));
}
