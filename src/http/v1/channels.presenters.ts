/** The channel routes' records (channels.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import QRCode from 'qrcode';
import type { z } from 'zod';
import { engineOf } from '../../domain/channels/capabilities.ts';
import { credentialsSet, visibleSettings, type ChannelRow, type StatusHistoryRow } from '../../domain/channels/channels.ts';
import type { ProviderProfileLookup } from '../../domain/channels/pairing.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { QrCode } from '../../providers/provider.ts';
import type { Platform } from '../../providers/registry.ts';
import type { CapabilitiesSchema, ChannelSchema, QrSchema, ConnectSchema, ChannelStatusSchema, ProfileSchema } from './channels.ts';

export type ChannelView = z.infer<typeof ChannelSchema>;
export type QrView = z.infer<typeof QrSchema>;
export type ChannelStatusView = z.infer<typeof ChannelStatusSchema>;
export type ConnectView = z.infer<typeof ConnectSchema>;
export type ChannelCapabilitiesRecord = z.infer<typeof CapabilitiesSchema>;

/** A channel as the API shows it at `now`: visible settings, the names of its credentials (never their values), its health. */
export function presentChannel(row: ChannelRow, sealer: Sealer, now: Date): ChannelView {
  return {
    id: row.id,
    platform: row.platform as Platform,
    engine: engineOf(row),
    name: row.name,
    status: row.status as ChannelView['status'],
    status_reason: row.statusReason,
    status_changed_at: row.statusChangedAt.toISOString(),
    display_phone_number: row.displayPhoneNumber,
    sandbox: row.sandbox,
    settings: visibleSettings(row),
    credentials_set: credentialsSet(row, sealer),
    health: {
      last_error_code: row.lastErrorCode,
      last_error_message: row.lastErrorMessage,
      last_error_at: row.lastErrorAt?.toISOString() ?? null,
      held_until: row.heldUntil && row.heldUntil.getTime() > now.getTime() ? row.heldUntil.toISOString() : null,
      reconnect_attempts: row.reconnectAttempts,
      next_retry_at: row.nextRetryAt?.toISOString() ?? null,
      last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    },
    limits: {
      messaging_tier: row.messagingTier,
      messaging_tier_source: row.messagingTierSource as 'provider' | 'api' | null,
      daily_broadcast_cap: row.dailyBroadcastCap,
    },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentStatus(channel: ChannelView, history: StatusHistoryRow[]): z.infer<typeof ChannelStatusSchema> {
  return {
    status: channel.status,
    status_reason: channel.status_reason,
    status_changed_at: channel.status_changed_at,
    health: channel.health,
    history: history.map((h) => ({
      from: h.fromStatus,
      to: h.toStatus,
      reason: h.reason,
      reason_code: h.reasonCode,
      at: h.createdAt.toISOString(),
    })),
  };
}

/** The QR to scan, with a PNG rendering of it. */
export async function presentQr(qr: QrCode): Promise<QrView> {
  return {
    qr: qr.qr,
    qr_image: await QRCode.toDataURL(qr.qr, { errorCorrectionLevel: 'M', margin: 2, width: 320 }),
    expires_at: qr.expiresAt.toISOString(),
  };
}

export function presentProfile(profile: ProviderProfileLookup): z.infer<typeof ProfileSchema> {
  return { phone: profile.phone, exists: profile.exists, chatapp_id: profile.chatappId, name: profile.name };
}
