/**
 * The paired-gateway protocol (docs/gateway-protocol.md), gateway side: sessions paired by QR code,
 * sends with idempotency keys, contacts and media.
 */
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';
import { batchRows } from '../db/batch-rows.ts';
import { sandboxAccounts, sandboxMedia, sandboxMessages } from '../db/schema.ts';
import { constantTimeEqual, randomToken, sha256Hex } from '../lib/crypto.ts';
import { bodyHash, type AccountRow, type GatewayStatus, type SandboxContext } from './context.ts';
import { fail, gateway, ok, type GatewayResult } from './errors.ts';
import { gatewayMessageId, qrText, sandboxDisplayNumber, sessionId } from './ids.ts';
import { createBatcher } from '../lib/batcher.ts';
import { normalizePhone, recipientOutcome, statusSteps, type RecipientOutcome } from './rules.ts';

type Json = Record<string, unknown>;

/** Parley's message types (docs: interface spec); the gateway takes them as they are. */
const MESSAGE_TYPES = new Set([
  'text', 'image', 'video', 'audio', 'document', 'sticker', 'template', 'buttons', 'list', 'location', 'location_request',
  'contact', 'reaction', 'mark_as_read', 'cta_url', 'media_carousel', 'product_carousel', 'single_product', 'multi_product',
  'catalog', 'link', 'poll', 'address', 'presence', 'edit_message', 'delete_message', 'message_status_query', 'message_media_download',
]);

/** Types that act on the chat rather than deliver a message: no status callbacks follow them. */
const NO_STATUS_TYPES = new Set(['mark_as_read', 'presence', 'edit_message', 'delete_message', 'message_status_query', 'message_media_download']);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** The problem with a message's content, or undefined when the gateway can send it. */
function contentProblem(type: string, content: Json): string | undefined {
  const text = typeof content.text === 'object' && content.text !== null ? (content.text as Json).body : content.text;
  switch (type) {
    case 'text':
      return nonEmpty(content.body) || nonEmpty(text) ? undefined : 'content.body must be a non-empty string';
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const url = content.media_url ?? content.media ?? content.url ?? content.sticker_url;
      if (nonEmpty(content.media_id)) return undefined;
      return isHttpUrl(url) ? undefined : 'content.media_url must be an http(s) URL';
    }
    case 'location':
      return typeof content.latitude === 'number' && typeof content.longitude === 'number' ? undefined : 'content.latitude and content.longitude must be numbers';
    case 'location_request':
      return nonEmpty(content.body) || nonEmpty(text) ? undefined : 'content.body must be a non-empty string';
    case 'contact':
      return nonEmpty(content.full_name) && nonEmpty(content.phone) ? undefined : 'content.full_name and content.phone are required';
    case 'reaction':
    case 'mark_as_read':
      return nonEmpty(content.message_id) ? undefined : 'content.message_id is required';
    case 'template': {
      const template = content.template;
      return isObject(template) && nonEmpty(template.name) && isObject(template.language) && nonEmpty(template.language.code)
        ? undefined
        : 'content.template.name and content.template.language.code are required';
    }
    case 'buttons': {
      if (!nonEmpty(content.body)) return 'content.body must be a non-empty string';
      const buttons = content.buttons;
      if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3) return 'content.buttons must hold 1 to 3 buttons';
      return buttons.every((b) => isObject(b) && nonEmpty(b.id) && nonEmpty(b.title)) ? undefined : 'each button needs an id and a title';
    }
    case 'list': {
      if (!nonEmpty(content.body) || !nonEmpty(content.button_text)) return 'content.body and content.button_text are required';
      const sections = content.sections;
      if (!Array.isArray(sections) || sections.length === 0) return 'content.sections must be a non-empty array';
      const rowsOk = sections.every(
        (s) => isObject(s) && Array.isArray(s.rows) && s.rows.length > 0 && s.rows.every((r) => isObject(r) && nonEmpty(r.id) && nonEmpty(r.title)),
      );
      return rowsOk ? undefined : 'each section needs rows with an id and a title';
    }
    default:
      return undefined;
  }
}

/** The pairing code for a phone while a QR is on show: eight characters, `ABCD-1234`. */
function pairingCodeOf(qr: string, phone: string): string {
  const code = sha256Hex(`${qr}:${phone}`).slice(0, 8).toUpperCase();
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

type ParsedSend = { to: string; type: string; content: Json; hash: string; outcome: RecipientOutcome };

/** A send's body read: the recipient, type and content the gateway takes, or why it refuses them. */
function parseSend(body: Json): GatewayResult<ParsedSend> {
  const to = normalizePhone(body.to);
  if (!to) return fail(gateway.invalid('to must be international digits without +'));
  if (typeof body.type !== 'string' || !MESSAGE_TYPES.has(body.type)) {
    return fail({ status: 400, code: 'unsupported_type', message: `type ${JSON.stringify(body.type)} is not supported`, retryable: false });
  }
  const type = body.type;
  const content = body.content;
  if (!isObject(content)) return fail(gateway.invalid('content must be an object'));
  const problem = contentProblem(type, content);
  if (problem) return fail(gateway.invalid(problem));
  const outcome = recipientOutcome(to);
  if (outcome === 'refuse') return fail(gateway.invalidRecipient(to));
  return ok({ to, type, content, hash: bodyHash({ to, type, content }), outcome });
}

export function createGatewayApi(ctx: SandboxContext) {
  const { config, clock } = ctx;
  const gatewayBase = `${config.baseUrl}/sandbox/gateway`;

  type NewSend = {
    row: { id: string; accountId: string; idempotencyKey: string; recipient: string; type: string; body: Json; bodyHash: string; createdAt: Date };
    /** SHA-256 of the API key the send came with: the insert takes it only from a working session this key drives. */
    tokenHash: string;
    firstStatus: 'sent' | 'delivered' | 'read' | 'failed' | undefined;
  };
  // New sends gathered (lib/batcher.ts), per database: the rows of the moment in one insert, and one
  // status callback per first status naming them all, in one transaction (a failed one is tried again
  // send by send). The insert checks each send's session and key itself (a send may come here before
  // any lookup, sendNew). Resolves false for a row not inserted (its key was taken meanwhile, or its
  // session is not a working one its key drives).
  const batchers = new WeakMap<Executor, (send: NewSend) => Promise<boolean>>();
  const newSends = (db: Executor) => {
    let batcher = batchers.get(db);
    if (!batcher) {
      batcher = createBatcher(
        (sends: NewSend[]) =>
          db.transaction(async (tx) => {
            const rows = sends.map(({ row, tokenHash }) => ({
              id: row.id, account_id: row.accountId, idempotency_key: row.idempotencyKey, recipient: row.recipient, type: row.type,
              body: row.body, body_hash: row.bodyHash, created_at: row.createdAt.toISOString(), token_hash: tokenHash,
            }));
            const inserted = new Set(
              (
                await queryRows<{ id: string }>(
                  tx,
                  sql`insert into sandbox_messages (id, account_id, direction, idempotency_key, recipient, type, body, body_hash, status, created_at)
                      select b.id, b.account_id, 'outbound', b.idempotency_key, b.recipient, b.type, b.body, b.body_hash, 'accepted', b.created_at
                        from ${batchRows(JSON.stringify(rows), 'b', 'id text, account_id text, idempotency_key text, recipient text, type text, body jsonb, body_hash text, created_at timestamptz, token_hash text')}
                        join sandbox_accounts a on a.id = b.account_id and a.token_hash = b.token_hash and a.protocol = 'gateway' and a.status = 'WORKING'
                      on conflict do nothing
                      returning id`,
                )
              ).map((r) => r.id),
            );
            const byStatus = new Map<NonNullable<NewSend['firstStatus']>, string[]>();
            for (const { row, firstStatus } of sends) {
              if (firstStatus && inserted.has(row.id)) byStatus.set(firstStatus, [...(byStatus.get(firstStatus) ?? []), row.id]);
            }
            for (const [status, ids] of byStatus) {
              await ctx.enqueueCallback(tx, { kind: 'message.status', ...(ids.length === 1 ? { message_id: ids[0]! } : { message_ids: ids }), status }, 1);
            }
            return sends.map((s) => inserted.has(s.row.id));
          }),
        // 200 rows at most: under the 1,000 ids a callback job may name.
        { maxBatch: 200, maxInFlight: 2, splitOnFailure: true },
      );
      batchers.set(db, batcher);
    }
    return batcher;
  };

  /**
   * The common send as a new row, for `session` driven by the key of hash `tokenHash`: a new idempotency
   * key and a message the gateway takes as it is (no throttling rule, not a read receipt). Resolves to
   * its id, or undefined when it is not such a send or was not inserted (the full path answers it).
   */
  async function insertNew(db: Executor, session: string, tokenHash: string, key: unknown, parsed: ReturnType<typeof parseSend>): Promise<string | undefined> {
    if (typeof key !== 'string' || key === '' || key.length > 200) return undefined;
    if (!parsed.ok || parsed.value.outcome === 'throttle_once' || parsed.value.type === 'mark_as_read') return undefined;
    const { to, type, content, hash, outcome } = parsed.value;
    const id = gatewayMessageId();
    const row = { id, accountId: session, idempotencyKey: key, recipient: to, type, body: { to, type, content }, bodyHash: hash, createdAt: clock.now() };
    const inserted = await newSends(db)({ row, tokenHash, firstStatus: NO_STATUS_TYPES.has(type) ? undefined : statusSteps(outcome)[0]! });
    return inserted ? id : undefined;
  }

  function view(account: AccountRow) {
    return { session: account.id, status: account.status as GatewayStatus };
  }

  /** Moves a session to `status` and, when that is a change, enqueues its session.status callback. */
  async function transition(db: Executor, account: AccountRow, status: GatewayStatus, changes: Partial<AccountRow> = {}) {
    return db.transaction(async (tx) => {
      const [updated] = await tx
        .update(sandboxAccounts)
        .set({ ...changes, status, updatedAt: clock.now() })
        .where(eq(sandboxAccounts.id, account.id))
        .returning();
      if (account.status !== status) await ctx.enqueueCallback(tx, { kind: 'session.status', session_id: account.id, status, at: clock.now().toISOString() }, 0);
      return updated!;
    });
  }

  /** The QR on show: the stored one while it lasts, else a new one. */
  async function currentQr(db: Executor, account: AccountRow): Promise<{ qr: string; expiresAt: Date }> {
    const now = clock.now();
    if (account.qr && account.qrExpiresAt && account.qrExpiresAt.getTime() > now.getTime()) return { qr: account.qr, expiresAt: account.qrExpiresAt };
    const qr = qrText();
    const expiresAt = new Date(now.getTime() + ctx.qrLifetimeMs);
    await db.update(sandboxAccounts).set({ qr, qrExpiresAt: expiresAt, updatedAt: now }).where(eq(sandboxAccounts.id, account.id));
    return { qr, expiresAt };
  }

  return {
    gatewayBase,

    /** Creates a STOPPED session and the API key that drives it. */
    async provisionSession(db: Executor) {
      const apiKey = `gwk_${randomToken(32)}`;
      const now = clock.now();
      const id = sessionId();
      await db.insert(sandboxAccounts).values({ id, protocol: 'gateway', tokenHash: sha256Hex(apiKey), status: 'STOPPED', createdAt: now, updatedAt: now });
      return { gatewayBase, session: id, apiKey };
    },

    /** The session an API key may drive: 401 for a wrong key, 404 for a session that is not its own. */
    async authenticate(db: Executor, session: string, apiKey: string | undefined): Promise<GatewayResult<AccountRow>> {
      if (!apiKey) return fail(gateway.unauthorized());
      const [account] = await db
        .select()
        .from(sandboxAccounts)
        .where(and(eq(sandboxAccounts.tokenHash, sha256Hex(apiKey)), eq(sandboxAccounts.protocol, 'gateway')))
        .limit(1);
      if (!account) return fail(gateway.unauthorized());
      if (!constantTimeEqual(account.id, session)) return fail(gateway.notFound(`session ${session}`));
      return ok(account);
    },

    /** PUT /sessions/{session} {callback_url, callback_secret}. */
    async configure(db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {callback_url, callback_secret}'));
      if (!isHttpUrl(body.callback_url)) return fail(gateway.invalid('callback_url must be an http(s) URL'));
      if (typeof body.callback_secret !== 'string' || body.callback_secret.length < 16) {
        return fail(gateway.invalid('callback_secret must be a string of at least 16 characters'));
      }
      const [updated] = await db
        .update(sandboxAccounts)
        .set({ callbackUrl: body.callback_url as string, callbackSecretSealed: ctx.sealer.seal(body.callback_secret), updatedAt: clock.now() })
        .where(eq(sandboxAccounts.id, account.id))
        .returning();
      return ok(view(updated!));
    },

    /** POST /sessions/{session}/start: SCAN_QR until paired; a paired session stays WORKING. */
    async start(db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
      if (account.status === 'WORKING' || account.status === 'SCAN_QR') return ok(view(account));
      return ok(view(await transition(db, account, 'SCAN_QR', { qr: null, qrExpiresAt: null })));
    },

    /** GET /sessions/{session}. */
    describe(account: AccountRow): Json {
      const phone = account.displayPhoneNumber;
      return { ...view(account), me: account.status === 'WORKING' && phone ? { id: `${phone}@c.us`, phone } : null };
    },

    /** GET /sessions/{session}/qr: the current QR, or a new one once the last one lapsed. */
    async qr(db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
      if (account.status !== 'SCAN_QR') return fail(gateway.conflict('not_scanning', `the session is ${account.status}, not SCAN_QR`));
      const current = await currentQr(db, account);
      return ok({ qr: current.qr, expires_at: current.expiresAt.toISOString() });
    },

    /**
     * POST /sessions/{session}/pairing-code {phone}: the code the phone types instead of scanning.
     * It is derived from the current QR and the phone, so it lapses with the QR and needs no storage.
     */
    async pairingCode(db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
      if (account.status !== 'SCAN_QR') return fail(gateway.conflict('not_scanning', `the session is ${account.status}, not SCAN_QR`));
      const phone = isObject(body) ? normalizePhone(body.phone) : undefined;
      if (!phone) return fail(gateway.invalid('phone must be a number in international format'));
      const current = await currentQr(db, account);
      return ok({ code: pairingCodeOf(current.qr, phone), expires_at: current.expiresAt.toISOString() });
    },

    /** POST /sessions/{session}/logout: unpairs; STOPPED. */
    async logout(db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
      return ok(view(await transition(db, account, 'STOPPED', { qr: null, qrExpiresAt: null, displayPhoneNumber: null })));
    },

    /** POST /link {code, phone}: a phone types the pairing code asked for it; its session goes WORKING. */
    async link(db: Executor, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body) || !nonEmpty(body.code)) return fail(gateway.invalid('code is required'));
      const phone = normalizePhone(body.phone);
      if (!phone) return fail(gateway.invalid('phone must be a number in international format'));
      const code = String(body.code).toUpperCase().replaceAll('-', '');
      const now = clock.now();
      const scanning = await db
        .select()
        .from(sandboxAccounts)
        .where(and(eq(sandboxAccounts.protocol, 'gateway'), eq(sandboxAccounts.status, 'SCAN_QR')));
      const account = scanning.find((a) => a.qr && a.qrExpiresAt && a.qrExpiresAt.getTime() > now.getTime() && pairingCodeOf(a.qr, phone).replace('-', '') === code);
      if (!account) return fail(gateway.notFound('pairing code'));
      const updated = await transition(db, account, 'WORKING', { qr: null, qrExpiresAt: null, displayPhoneNumber: phone });
      return ok({ ...view(updated), me: { id: `${phone}@c.us`, phone } });
    },

    /** POST /scan {qr, phone?}: a phone scans a QR the gateway showed; its session goes WORKING. */
    async scan(db: Executor, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body) || !nonEmpty(body.qr)) return fail(gateway.invalid('qr is required'));
      let phone = sandboxDisplayNumber().slice(1);
      if (body.phone !== undefined) {
        const digits = normalizePhone(body.phone);
        if (!digits) return fail(gateway.invalid('phone must be a number in international format'));
        phone = digits;
      }
      const [account] = await db
        .select()
        .from(sandboxAccounts)
        .where(and(eq(sandboxAccounts.protocol, 'gateway'), eq(sandboxAccounts.qr, body.qr)))
        .limit(1);
      if (!account || account.status !== 'SCAN_QR') return fail(gateway.notFound('QR code'));
      if (!account.qrExpiresAt || account.qrExpiresAt.getTime() <= clock.now().getTime()) {
        return fail({ status: 410, code: 'qr_expired', message: 'the QR code lapsed; read a new one', retryable: false });
      }
      const updated = await transition(db, account, 'WORKING', { qr: null, qrExpiresAt: null, displayPhoneNumber: phone });
      return ok({ ...view(updated), me: { id: `${phone}@c.us`, phone } });
    },

    /**
     * POST /sessions/{session}/messages before any lookup: the common send (a new key, a message taken
     * as it is) inserted with the sends of the moment, its session and API key checked by the insert.
     * Resolves to its id (201), or undefined: then `send` after `authenticate` answers it.
     */
    async sendNew(db: Executor, session: string, apiKey: string, body: unknown): Promise<string | undefined> {
      if (!isObject(body)) return undefined;
      return insertNew(db, session, sha256Hex(apiKey), body.idempotency_key, parseSend(body));
    },

    /**
     * POST /sessions/{session}/messages: 201 {id}; a known idempotency_key answers 200 with the same id.
     * `triedNew`: sendNew already tried this body as a new row (the gathered insert is not tried again).
     */
    async send(db: Executor, account: AccountRow, body: unknown, options: { triedNew?: boolean } = {}): Promise<GatewayResult<{ created: boolean; id: string }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {to, type, content, idempotency_key}'));
      const key = body.idempotency_key;
      if (key !== undefined && (typeof key !== 'string' || key === '' || key.length > 200)) {
        return fail(gateway.invalid('idempotency_key must be a string of 1 to 200 characters'));
      }
      // The common send (a new key, a working session, a message it takes as it is): inserted with
      // the sends of the moment, no lookup first. A key already held falls through to the lookup.
      // Read once; its refusal is answered only after the key's lookup and the session's state below.
      const parsed = parseSend(body);
      if (account.status === 'WORKING' && !options.triedNew) {
        const id = await insertNew(db, account.id, account.tokenHash, key, parsed);
        if (id) return ok({ created: true, id });
      }
      let known: { id: string; status: string } | undefined;
      if (key !== undefined) {
        [known] = await db
          .select({ id: sandboxMessages.id, status: sandboxMessages.status })
          .from(sandboxMessages)
          .where(and(eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.idempotencyKey, key)))
          .limit(1);
        if (known && known.status !== 'throttled') return ok({ created: false, id: known.id });
      }
      if (account.status !== 'WORKING') {
        return fail(gateway.conflict('session_not_working', `the session is ${account.status}; pair it before sending`));
      }
      if (!parsed.ok) return parsed;
      const { to, type, content, hash, outcome } = parsed.value;
      return db.transaction(async (tx): Promise<GatewayResult<{ created: boolean; id: string }>> => {
        // A retry of a throttled attempt: by its idempotency key (none to look for when the key is new), or else by the same body.
        const [throttled] = key !== undefined && !known ? [] : await tx
          .update(sandboxMessages)
          .set({ status: 'accepted' })
          .where(
            and(
              eq(sandboxMessages.accountId, account.id),
              eq(sandboxMessages.status, 'throttled'),
              key !== undefined ? eq(sandboxMessages.idempotencyKey, key) : and(eq(sandboxMessages.recipient, to), eq(sandboxMessages.bodyHash, hash)),
            ),
          )
          .returning({ id: sandboxMessages.id });
        let id: string;
        if (throttled) {
          id = throttled.id;
        } else {
          id = gatewayMessageId();
          const first = outcome === 'throttle_once';
          const inserted = await tx
            .insert(sandboxMessages)
            .values({
              id,
              accountId: account.id,
              direction: 'outbound',
              idempotencyKey: key ?? null,
              recipient: to,
              type,
              body: { to, type, content },
              bodyHash: hash,
              status: first ? 'throttled' : 'accepted',
              createdAt: clock.now(),
            })
            .onConflictDoNothing()
            .returning({ id: sandboxMessages.id });
          if (inserted.length === 0) {
            // The same key raced in from another request: answer with the message it made.
            const [winner] = await tx
              .select({ id: sandboxMessages.id })
              .from(sandboxMessages)
              .where(and(eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.idempotencyKey, key!)))
              .limit(1);
            return ok({ created: false, id: winner!.id });
          }
          if (first) return fail(gateway.rateLimited());
        }
        if (type === 'mark_as_read') {
          await tx
            .update(sandboxMessages)
            .set({ status: 'read' })
            .where(and(eq(sandboxMessages.id, String(content.message_id)), eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.direction, 'inbound')));
        }
        if (!NO_STATUS_TYPES.has(type)) {
          await ctx.enqueueCallback(tx, { kind: 'message.status', message_id: id, status: statusSteps(outcome)[0]! }, 1);
        }
        return ok({ created: true, id });
      });
    },

    /**
     * GET /sessions/{session}/idempotency-keys/{key}: the send this key made, or 404 when the gateway
     * never accepted one (a send refused with 429 made none). Answers whatever the session's state.
     */
    async findByKey(db: Executor, account: AccountRow, key: string): Promise<GatewayResult<Json>> {
      const [known] = await db
        .select({ id: sandboxMessages.id, status: sandboxMessages.status, createdAt: sandboxMessages.createdAt })
        .from(sandboxMessages)
        .where(and(eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.idempotencyKey, key)))
        .limit(1);
      if (!known || known.status === 'throttled') return fail(gateway.notFound(`a send with idempotency_key ${key}`));
      return ok({ idempotency_key: key, id: known.id, status: known.status, created_at: known.createdAt.toISOString() });
    },

    /** GET /sessions/{session}/contacts/{phone}. */
    lookupContact(phone: string): GatewayResult<Json> {
      const digits = normalizePhone(phone);
      if (!digits) return fail(gateway.invalid('phone must be international digits'));
      const exists = recipientOutcome(digits) !== 'refuse';
      return ok(exists ? { exists, id: `${digits}@c.us`, name: `Sandbox ${digits.slice(-4)}` } : { exists, id: null, name: null });
    },

    /** GET /sessions/{session}/media/{media_id}. */
    async media(db: Executor, account: AccountRow, mediaId: string): Promise<GatewayResult<Json>> {
      const [media] = await db
        .select()
        .from(sandboxMedia)
        .where(and(eq(sandboxMedia.id, mediaId), eq(sandboxMedia.accountId, account.id)))
        .limit(1);
      if (!media) return fail(gateway.notFound(`media ${mediaId}`));
      return ok({ url: ctx.mediaUrl(media.id), mime_type: media.mimeType });
    },
  };
}

export type GatewayApi = ReturnType<typeof createGatewayApi>;
