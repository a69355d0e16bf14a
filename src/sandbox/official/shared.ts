/** What the official API's verbs share: the number's answers, the number rows, tokens as the provider writes them. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts, sandboxTemplates } from '../../db/schema.ts';
import { randomToken } from '../../lib/crypto.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { numericId, sandboxDisplayNumber } from '../ids.ts';
import { normalizePhone } from '../rules.ts';

export type Json = Record<string, unknown>;

export const VERIFIED_NAME = 'Sandbox Business';
const SIGNUP_CODE_LIFETIME_MS = 10 * 60 * 1000;

/** Where the sandbox serves the official API. */
export const officialApiBase = (ctx: SandboxContext) => `${ctx.config.baseUrl}/sandbox/official`;

/** An access token as the provider writes them ("EAA" and opaque characters). */
export function accessToken(): string {
  return `EAAS${randomToken(48).replace(/[-_]/g, 'x')}`;
}

/** A business account's template of that name and language, or undefined. */
export async function findTemplate(db: Executor, wabaId: string, name: string, language: string) {
  const [row] = await db
    .select()
    .from(sandboxTemplates)
    .where(and(eq(sandboxTemplates.wabaId, wabaId), eq(sandboxTemplates.name, name), eq(sandboxTemplates.language, language)))
    .limit(1);
  return row;
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function phoneInfo(account: AccountRow) {
  return {
    id: account.id,
    display_phone_number: account.displayPhoneNumber,
    verified_name: VERIFIED_NAME,
    quality_rating: 'GREEN',
    // The sandbox's numbers are not limited (set a channel's tier through the channel API to try the limits).
    messaging_limit_tier: 'TIER_UNLIMITED',
    code_verification_status: 'VERIFIED',
    platform_type: account.registered ? 'CLOUD_API' : 'NOT_APPLICABLE',
    status: account.registered ? 'CONNECTED' : 'PENDING',
    throughput: { level: 'STANDARD' },
  };
}

export async function insertNumber(
  ctx: SandboxContext,
  db: Executor,
  input: { displayPhoneNumber?: string; registered: boolean; tokenHash: string; signupCodeHash?: string },
) {
  const now = ctx.clock.now();
  const row = {
    id: numericId(),
    protocol: 'official',
    wabaId: numericId(),
    displayPhoneNumber: input.displayPhoneNumber ?? sandboxDisplayNumber(),
    tokenHash: input.tokenHash,
    status: input.registered ? 'CONNECTED' : 'PENDING',
    registered: input.registered,
    subscribed: input.registered,
    signupCodeHash: input.signupCodeHash ?? null,
    signupCodeExpiresAt: input.signupCodeHash ? new Date(now.getTime() + SIGNUP_CODE_LIFETIME_MS) : null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(sandboxAccounts).values(row);
  return row;
}

/** "+1 555 123 4567" and "15551234567" both become "+15551234567"; undefined when it is not a number. */
export function displayNumber(value: unknown): string | undefined {
  const digits = normalizePhone(value);
  return digits ? `+${digits}` : undefined;
}
