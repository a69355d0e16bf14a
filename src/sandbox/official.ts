/**
 * The official provider's business cloud API, provider side: numbers, tokens, sends, templates and
 * the embedded-signup exchange, with the provider's own answers and error codes.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { sandboxAccounts, sandboxMedia, sandboxMessages, sandboxTemplates } from '../db/schema.ts';
import { constantTimeEqual, randomToken, sha256Hex } from '../lib/crypto.ts';
import { bodyHash, type AccountRow, type SandboxContext } from './context.ts';
import { fail, ok, official, type OfficialResult } from './errors.ts';
import { numericId, sandboxDisplayNumber, wamid } from './ids.ts';
import { heldMediaSha256, mediaSize } from './media.ts';
import { validateOfficialSend } from './official-validation.ts';
import { normalizePhone, recipientOutcome, statusSteps } from './rules.ts';

type Json = Record<string, unknown>;

export const VERIFIED_NAME = 'Sandbox Business';
const SIGNUP_CODE_LIFETIME_MS = 10 * 60 * 1000;
const TEMPLATE_PAGE_DEFAULT = 25;
const TEMPLATE_PAGE_MAX = 100;
/** Template fields answered without `fields`, as the provider does: rejected_reason only when asked for. */
const TEMPLATE_DEFAULT_FIELDS = ['id', 'name', 'language', 'status', 'category', 'components'];
const TEMPLATE_FIELDS = [...TEMPLATE_DEFAULT_FIELDS, 'rejected_reason'];

/** The template fields a `fields` query asks for, or the provider's refusal of an unknown one. */
function templateFields(value: unknown): string[] | string {
  if (value === undefined) return TEMPLATE_DEFAULT_FIELDS;
  const asked = typeof value === 'string' ? value.split(',').map((f) => f.trim()).filter((f) => f !== '') : [];
  if (asked.length === 0) return 'Param fields must be a comma-separated list of fields.';
  const unknown = asked.find((f) => !TEMPLATE_FIELDS.includes(f));
  return unknown === undefined ? asked : `Tried accessing nonexisting field (${unknown.slice(0, 100)}) on node type (WhatsAppBusinessHSM)`;
}
const TEMPLATE_CATEGORIES = new Set(['MARKETING', 'UTILITY', 'AUTHENTICATION']);
const TEMPLATE_COMPONENTS = new Set(['HEADER', 'BODY', 'FOOTER', 'BUTTONS']);

/** An access token as the provider writes them ("EAA" and opaque characters). */
function accessToken(): string {
  return `EAAS${randomToken(48).replace(/[-_]/g, 'x')}`;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function placeholderCount(components: unknown[]): number {
  const body = components.find((c) => isObject(c) && String(c.type).toUpperCase() === 'BODY') as Json | undefined;
  const text = typeof body?.text === 'string' ? body.text : '';
  return new Set(text.match(/\{\{\s*[^{}]+?\s*\}\}/g) ?? []).size;
}

export function createOfficialApi(ctx: SandboxContext) {
  const { config, clock } = ctx;
  const apiBase = `${config.baseUrl}/sandbox/official`;

  function phoneInfo(account: AccountRow) {
    return {
      id: account.id,
      display_phone_number: account.displayPhoneNumber,
      verified_name: VERIFIED_NAME,
      quality_rating: 'GREEN',
      code_verification_status: 'VERIFIED',
      platform_type: account.registered ? 'CLOUD_API' : 'NOT_APPLICABLE',
      status: account.registered ? 'CONNECTED' : 'PENDING',
      throughput: { level: 'STANDARD' },
    };
  }

  async function insertNumber(db: Executor, input: { displayPhoneNumber?: string; registered: boolean; tokenHash: string; signupCodeHash?: string }) {
    const now = clock.now();
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
  function displayNumber(value: unknown): string | undefined {
    const digits = normalizePhone(value);
    return digits ? `+${digits}` : undefined;
  }

  async function templateCheck(db: Executor, account: AccountRow, template: { name: string; language: string; bodyParameters: number }) {
    const [row] = await db
      .select()
      .from(sandboxTemplates)
      .where(and(eq(sandboxTemplates.wabaId, account.wabaId ?? ''), eq(sandboxTemplates.name, template.name), eq(sandboxTemplates.language, template.language)))
      .limit(1);
    if (!row || row.status !== 'APPROVED') return fail(official.templateMissing(template.name, template.language));
    const expected = placeholderCount(row.components);
    if (expected !== template.bodyParameters) return fail(official.templateParams(expected, template.bodyParameters));
    return undefined;
  }

  /** The account a bearer token belongs to; 190 when there is none. */
  async function authenticate(db: Executor, token: string | undefined): Promise<OfficialResult<AccountRow>> {
    if (!token) return fail(official.invalidToken('An active access token must be used to query information about the current user.'));
    const [account] = await db
      .select()
      .from(sandboxAccounts)
      .where(and(eq(sandboxAccounts.tokenHash, sha256Hex(token)), eq(sandboxAccounts.protocol, 'official')))
      .limit(1);
    return account ? ok(account) : fail(official.invalidToken());
  }

  return {
    apiBase,

    /** Provisions a connected number (registered, app subscribed) with its own business account and token. */
    async provisionNumber(db: Executor, input?: { displayPhoneNumber?: string }) {
      const token = accessToken();
      const display = input?.displayPhoneNumber === undefined ? undefined : displayNumber(input.displayPhoneNumber);
      if (input?.displayPhoneNumber !== undefined && !display) throw new Error('displayPhoneNumber must be a phone number in international format');
      const row = await insertNumber(db, { displayPhoneNumber: display, registered: true, tokenHash: sha256Hex(token) });
      return {
        apiBase,
        apiVersion: config.official.apiVersion,
        phoneNumberId: row.id,
        wabaId: row.wabaId,
        displayPhoneNumber: row.displayPhoneNumber,
        accessToken: token,
      };
    },

    authenticate,

    /** POST /{phone_number_id}/messages: a message, or a mark-as-read. */
    async send(db: Executor, account: AccountRow, phoneNumberId: string, body: unknown): Promise<OfficialResult<Json>> {
      if (account.id !== phoneNumberId) return fail(official.unknownObject('POST', phoneNumberId));
      const validated = validateOfficialSend(body);
      if (!validated.ok) return validated;
      const send = validated.value;
      if (send.kind === 'read') {
        const read = await db
          .update(sandboxMessages)
          .set({ status: 'read' })
          .where(and(eq(sandboxMessages.id, send.messageId), eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.direction, 'inbound')))
          .returning({ id: sandboxMessages.id });
        if (read.length === 0) return fail(official.invalidParameter(`Param message_id (${send.messageId}) is not a message this number received.`));
        return ok({ success: true });
      }
      if (!account.registered) return fail(official.notRegistered());
      if (send.template) {
        const refused = await templateCheck(db, account, send.template);
        if (refused) return refused;
      }
      const outcome = recipientOutcome(send.to);
      // A template may open a conversation; anything else needs the customer to have written lately.
      if (outcome === 'refuse' && send.type !== 'template') return fail(official.reengagement());
      const native = body as Json;
      const hash = bodyHash(native);
      return db.transaction(async (tx): Promise<OfficialResult<Json>> => {
        const [throttled] = await tx
          .update(sandboxMessages)
          .set({ status: 'accepted' })
          .where(
            and(
              eq(sandboxMessages.accountId, account.id),
              eq(sandboxMessages.recipient, send.to),
              eq(sandboxMessages.bodyHash, hash),
              eq(sandboxMessages.status, 'throttled'),
            ),
          )
          .returning({ id: sandboxMessages.id });
        let id: string;
        if (throttled) {
          id = throttled.id;
        } else {
          id = wamid();
          const first = outcome === 'throttle_once';
          await tx.insert(sandboxMessages).values({
            id,
            accountId: account.id,
            direction: 'outbound',
            recipient: send.to,
            type: send.type,
            body: native,
            bodyHash: hash,
            status: first ? 'throttled' : 'accepted',
            createdAt: clock.now(),
          });
          // The refused first attempt is kept (committed) so its retry is recognised.
          if (first) return fail(official.throughput());
        }
        await ctx.enqueueCallback(tx, { kind: 'message.status', message_id: id, status: statusSteps(outcome)[0]! }, 1);
        return ok({
          messaging_product: 'whatsapp',
          contacts: [{ input: String(native.to), wa_id: send.to }],
          messages: [send.type === 'template' ? { id, message_status: 'accepted' } : { id }],
        });
      });
    },

    /** GET /{id}: a phone number, a business account, or a media object the token may see. */
    async getObject(db: Executor, account: AccountRow, id: string): Promise<OfficialResult<Json>> {
      if (id === account.id) return ok(phoneInfo(account));
      if (id === account.wabaId) {
        return ok({ id, name: VERIFIED_NAME, currency: 'USD', timezone_id: '1', message_template_namespace: sha256Hex(id).slice(0, 36) });
      }
      const [media] = await db
        .select()
        .from(sandboxMedia)
        .where(and(eq(sandboxMedia.id, id), eq(sandboxMedia.accountId, account.id)))
        .limit(1);
      if (!media) return fail(official.unknownObject('GET', id));
      return ok({
        messaging_product: 'whatsapp',
        url: ctx.mediaUrl(media.id),
        mime_type: media.mimeType,
        sha256: await heldMediaSha256(media),
        file_size: mediaSize(media),
        id: media.id,
      });
    },

    /** POST /{phone_number_id}/register {messaging_product, pin}. */
    async register(db: Executor, account: AccountRow, phoneNumberId: string, body: unknown): Promise<OfficialResult<Json>> {
      if (account.id !== phoneNumberId) return fail(official.unknownObject('POST', phoneNumberId));
      if (!isObject(body) || body.messaging_product !== 'whatsapp') return fail(official.invalidParameter("Param messaging_product must be 'whatsapp'."));
      if (typeof body.pin !== 'string' || !/^\d{6}$/.test(body.pin)) return fail(official.invalidParameter('Param pin must be a 6-digit string.'));
      await db
        .update(sandboxAccounts)
        .set({ registered: true, status: 'CONNECTED', updatedAt: clock.now() })
        .where(eq(sandboxAccounts.id, account.id));
      return ok({ success: true });
    },

    /** GET /{waba_id}/message_templates, paged with cursors like the provider's. */
    async listTemplates(db: Executor, account: AccountRow, wabaId: string, query: Json): Promise<OfficialResult<Json>> {
      if (account.wabaId !== wabaId) return fail(official.unknownObject('GET', wabaId));
      let limit = TEMPLATE_PAGE_DEFAULT;
      if (query.limit !== undefined) {
        limit = Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > TEMPLATE_PAGE_MAX) return fail(official.invalidParameter(`Param limit must be an integer from 1 to ${TEMPLATE_PAGE_MAX}.`));
      }
      const fields = templateFields(query.fields);
      if (typeof fields === 'string') return fail(official.invalidParameter(fields));
      const conditions: Array<SQL | undefined> = [eq(sandboxTemplates.wabaId, wabaId)];
      if (typeof query.name === 'string') conditions.push(eq(sandboxTemplates.name, query.name));
      if (typeof query.status === 'string') conditions.push(eq(sandboxTemplates.status, query.status.toUpperCase()));
      if (query.after !== undefined) {
        const after = typeof query.after === 'string' ? Buffer.from(query.after, 'base64url').toString('utf8') : '';
        const [anchor] = /^\d+$/.test(after)
          ? await db.select().from(sandboxTemplates).where(and(eq(sandboxTemplates.id, after), eq(sandboxTemplates.wabaId, wabaId))).limit(1)
          : [];
        if (!anchor) return fail(official.invalidParameter('Param after is not a valid cursor.'));
        conditions.push(or(gt(sandboxTemplates.createdAt, anchor.createdAt), and(eq(sandboxTemplates.createdAt, anchor.createdAt), gt(sandboxTemplates.id, anchor.id))));
      }
      const rows = await db
        .select()
        .from(sandboxTemplates)
        .where(and(...conditions))
        .orderBy(asc(sandboxTemplates.createdAt), asc(sandboxTemplates.id))
        .limit(limit + 1);
      const page = rows.slice(0, limit);
      const cursor = (id: string) => Buffer.from(id).toString('base64url');
      const paging: Json = { cursors: page.length ? { before: cursor(page[0]!.id), after: cursor(page.at(-1)!.id) } : {} };
      if (rows.length > limit) {
        const next = new URL(`${apiBase}/${config.official.apiVersion}/${wabaId}/message_templates`);
        next.searchParams.set('limit', String(limit));
        next.searchParams.set('after', cursor(page.at(-1)!.id));
        paging.next = next.toString();
      }
      return ok({
        data: page.map((t) => {
          const all: Json = {
            id: t.id,
            name: t.name,
            language: t.language,
            category: t.category,
            status: t.status,
            components: t.components,
            rejected_reason: t.status === 'REJECTED' ? (t.reason ?? 'OTHER') : 'NONE',
          };
          return Object.fromEntries(Object.entries(all).filter(([k]) => k === 'id' || fields.includes(k)));
        }),
        paging,
      });
    },

    /** POST /{waba_id}/message_templates: stored PENDING; the decision follows as a webhook. */
    async submitTemplate(db: Executor, account: AccountRow, wabaId: string, body: unknown): Promise<OfficialResult<Json>> {
      if (account.wabaId !== wabaId) return fail(official.unknownObject('POST', wabaId));
      if (!isObject(body)) return fail(official.invalidParameter('The request body must be a JSON object.'));
      const { name, language, components } = body;
      if (typeof name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(name)) {
        return fail(official.invalidParameter('Param name must be at most 512 lowercase letters, digits and underscores.'));
      }
      if (typeof language !== 'string' || !/^[a-z]{2,3}(_[A-Za-z]{2,4})?$/.test(language)) {
        return fail(official.invalidParameter('Param language must be a locale code such as en_US.'));
      }
      const category = typeof body.category === 'string' ? body.category.toUpperCase() : '';
      if (!TEMPLATE_CATEGORIES.has(category)) return fail(official.invalidParameter('Param category must be one of {MARKETING, UTILITY, AUTHENTICATION}.'));
      if (!Array.isArray(components) || components.length === 0) return fail(official.invalidParameter('Param components must be a non-empty array.'));
      for (const [i, component] of components.entries()) {
        if (!isObject(component) || !TEMPLATE_COMPONENTS.has(String(component.type).toUpperCase())) {
          return fail(official.invalidParameter(`Param components[${i}]['type'] must be one of {HEADER, BODY, FOOTER, BUTTONS}.`));
        }
      }
      const bodies = components.filter((c) => String((c as Json).type).toUpperCase() === 'BODY') as Json[];
      if (bodies.length !== 1 || (category !== 'AUTHENTICATION' && (typeof bodies[0]!.text !== 'string' || bodies[0]!.text.trim() === ''))) {
        return fail(official.invalidParameter('Param components must hold exactly one BODY component with its text.'));
      }
      const id = numericId();
      const inserted = await db.transaction(async (tx) => {
        const rows = await tx
          .insert(sandboxTemplates)
          .values({ id, wabaId, name, language, category, components, status: 'PENDING', reason: null, createdAt: clock.now() })
          .onConflictDoNothing()
          .returning({ id: sandboxTemplates.id });
        if (rows.length === 0) return false;
        await ctx.enqueueCallback(tx, { kind: 'template.status', template_id: id }, 1);
        return true;
      });
      if (!inserted) {
        return fail({ ...official.invalidParameter(`Message template "${name}" already exists in ${language}.`), subcode: 2388024 });
      }
      return ok({ id, status: 'PENDING', category });
    },

    /** GET /{waba_id}/phone_numbers. */
    async listPhoneNumbers(db: Executor, account: AccountRow, wabaId: string): Promise<OfficialResult<Json>> {
      if (account.wabaId !== wabaId) return fail(official.unknownObject('GET', wabaId));
      const rows = await db.select().from(sandboxAccounts).where(and(eq(sandboxAccounts.wabaId, wabaId), eq(sandboxAccounts.protocol, 'official')));
      return ok({ data: rows.map(phoneInfo) });
    },

    /** POST /{waba_id}/subscribed_apps: from now on the business account's webhooks are delivered. */
    async subscribeApp(db: Executor, account: AccountRow, wabaId: string): Promise<OfficialResult<Json>> {
      if (account.wabaId !== wabaId) return fail(official.unknownObject('POST', wabaId));
      await db.update(sandboxAccounts).set({ subscribed: true, updatedAt: clock.now() }).where(eq(sandboxAccounts.wabaId, wabaId));
      return ok({ success: true });
    },

    /** POST /sandbox/official/signup: the browser half of embedded signup, yielding a one-time code. */
    async signup(db: Executor, body: unknown): Promise<OfficialResult<Json>> {
      const requested = isObject(body) ? body.display_phone_number : undefined;
      const display = requested === undefined ? undefined : displayNumber(requested);
      if (requested !== undefined && !display) return fail(official.invalidParameter('Param display_phone_number must be a phone number in international format.'));
      const code = `AQ${randomToken(32)}`;
      // The number's token is only issued by the code exchange; until then it accepts none.
      const row = await insertNumber(db, {
        displayPhoneNumber: display,
        registered: false,
        tokenHash: sha256Hex(`unissued:${randomBytes(32).toString('hex')}`),
        signupCodeHash: sha256Hex(code),
      });
      return ok({ code, waba_id: row.wabaId, phone_number_id: row.id });
    },

    /** GET /oauth/access_token?client_id&client_secret&code: the code, once, for the business token. */
    async exchangeCode(db: Executor, query: Json): Promise<OfficialResult<Json>> {
      for (const field of ['client_id', 'client_secret', 'code']) {
        if (typeof query[field] !== 'string' || query[field] === '') return fail(official.invalidParameter(`Missing ${field} parameter.`));
      }
      if (!constantTimeEqual(String(query.client_secret), ctx.officialAppSecret)) return fail(official.badClientSecret());
      const now = clock.now();
      const token = accessToken();
      const [account] = await db
        .update(sandboxAccounts)
        .set({ tokenHash: sha256Hex(token), signupCodeHash: null, signupCodeExpiresAt: null, updatedAt: now })
        .where(
          and(
            eq(sandboxAccounts.signupCodeHash, sha256Hex(String(query.code))),
            gt(sandboxAccounts.signupCodeExpiresAt, now),
          ),
        )
        .returning({ id: sandboxAccounts.id });
      if (!account) return fail(official.badCode());
      return ok({ access_token: token, token_type: 'bearer' });
    },

    /**
     * GET /debug_token?input_token=: what a token may reach. The caller authenticates with a token
     * of its own or the app token "{app_id}|{app_secret}".
     */
    async debugToken(db: Executor, callerToken: string | undefined, inputToken: unknown): Promise<OfficialResult<Json>> {
      const appToken = callerToken?.includes('|') && constantTimeEqual(callerToken.slice(callerToken.indexOf('|') + 1), ctx.officialAppSecret);
      if (!appToken) {
        const caller = await authenticate(db, callerToken);
        if (!caller.ok) return caller;
      }
      if (typeof inputToken !== 'string' || inputToken === '') return fail(official.invalidParameter('The parameter input_token is required.'));
      const target = await authenticate(db, inputToken);
      if (!target.ok) {
        return ok({ data: { is_valid: false, scopes: [], error: { code: 190, message: 'Invalid OAuth access token.' } } });
      }
      const wabaIds = [target.value.wabaId!];
      return ok({
        data: {
          app_id: config.official.appId ?? 'sandbox',
          type: 'SYSTEM_USER',
          application: 'Parley Sandbox',
          data_access_expires_at: 0,
          expires_at: 0,
          is_valid: true,
          scopes: ['whatsapp_business_management', 'whatsapp_business_messaging'],
          granular_scopes: [
            { scope: 'whatsapp_business_management', target_ids: wabaIds },
            { scope: 'whatsapp_business_messaging', target_ids: wabaIds },
          ],
        },
      });
    },
  };
}

export type OfficialApi = ReturnType<typeof createOfficialApi>;
