/**
 * Satisfaction surveys (docs/inbox.md#satisfaction-surveys). When a conversation is resolved while the
 * organization's survey is on (for its channel), a survey is decided in the transaction resolving it and
 * the `conversation.csat` job sends the request: a list of the five ratings, which the official API shows
 * as a list and a linked device as numbered text (the engine's simplified form), so the customer answers
 * by choosing a row or by writing the number. Nothing is sent outside the customer-service window (the
 * survey is `not_sent`, reason window_closed) or to a group. The customer's answer, taken while the
 * survey is open (expire_hours), rates it: stored on the survey and on the conversation, `csat.submitted`
 * recorded, and the conversation stays resolved (an answer is not a new question). Anything else the
 * customer writes is an ordinary message and opens the conversation.
 */
import { and, desc, eq, gt, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { emptyPage, equalWhereGiven, given, listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { conversations, csatSurveys } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Actor } from '../actor.ts';
import { recordEvent } from '../events/outbox.ts';
import { acceptMessageOnce, type MessageDeps } from '../messages/accept.ts';
import { loadConversation, type ConversationHooks } from '../messages/conversations.ts';
import type { InboundCsatRecorder } from '../messages/provider-events.ts';
import { normalizeKeyword } from '../contacts/opt-out.ts';
import { PERMISSIONS } from '../permissions.ts';
import { cursorKey } from '../paging.ts';
import { loadCsatSettings, type CsatSettings } from './settings.ts';

export type CsatSurveyRow = typeof csatSurveys.$inferSelect;
export const CSAT_STATUSES = ['pending', 'sent', 'answered', 'expired', 'not_sent'] as const;
export type CsatStatus = (typeof CSAT_STATUSES)[number];
export const CSAT_COMMENT_MAX = 1000;

/** A survey's status as of now: a sent one past its time reads expired (nothing needs to write that). */
export const surveyStatus = (row: CsatSurveyRow, now: Date): CsatStatus =>
  row.status === 'sent' && row.expiresAt && row.expiresAt.getTime() <= now.getTime() ? 'expired' : (row.status as CsatStatus);

const ROW_ID = /^csat:([1-5])$/;
const NUMBER_FIRST = /^([1-5])(?:\s*(?:[-.:)/,]|\s)\s*([\s\S]*))?$/u;
const STARS = /^(?:⭐|★|\*){1,5}$/u;

/**
 * The rating an inbound message gives, with the words beside it: a chosen row or button (`csat:N`), a
 * text starting with 1-5 (the rest is the comment), one to five stars, or a rating's label as the whole
 * text. Null: the message is no answer.
 */
export function ratingOf(
  settings: Pick<CsatSettings, 'rating_labels'>,
  type: string,
  content: Record<string, unknown>,
): { rating: number; comment: string | null } | null {
  if (type === 'interactive') {
    const id = typeof content.id === 'string' ? ROW_ID.exec(content.id) : null;
    return id ? { rating: Number(id[1]), comment: null } : null;
  }
  if (type !== 'text' || typeof content.body !== 'string') return null;
  const text = content.body.trim();
  const numbered = NUMBER_FIRST.exec(text);
  if (numbered) {
    const comment = numbered[2]?.trim().slice(0, CSAT_COMMENT_MAX) || null;
    return { rating: Number(numbered[1]), comment };
  }
  if (STARS.test(text)) return { rating: [...text].length, comment: null };
  const label = normalizeKeyword(text);
  const index = settings.rating_labels.findIndex((l) => normalizeKeyword(l) === label);
  return index >= 0 ? { rating: index + 1, comment: null } : null;
}

/** The request's content: a list of the ratings 1 to 5 (numbered 1 to 5 where the engine sends it as text). */
export function requestContent(settings: CsatSettings): Record<string, unknown> {
  return {
    body: settings.question,
    button_text: settings.button_text,
    sections: [
      {
        title: 'Rating',
        rows: settings.rating_labels.map((title, i) => ({ id: `csat:${i + 1}`, title, description: '⭐'.repeat(i + 1) })),
      },
    ],
  };
}

/**
 * Decides the survey of a conversation just resolved and enqueues its sending, in the transaction
 * resolving it: none while the survey is off (or not for the channel), for a group (no one contact), or
 * while an earlier survey of the conversation is still open (resolving, reopening and resolving again
 * asks once).
 */
export function createCsatRequester(deps: { queue: Queue }): NonNullable<ConversationHooks['onResolved']> {
  return async (tx, row, now) => {
    if (!row.contactId) return;
    const settings = await loadCsatSettings(tx, row.organizationId);
    if (!settings.enabled || (settings.channel_ids && !settings.channel_ids.includes(row.channelId))) return;
    const open = await tx
      .select({ id: csatSurveys.id })
      .from(csatSurveys)
      .where(
        and(
          eq(csatSurveys.conversationId, row.id),
          sql`(${csatSurveys.status} = 'pending' or (${csatSurveys.status} = 'sent' and ${csatSurveys.expiresAt} > ${now.toISOString()}::timestamptz))`,
        ),
      )
      .limit(1);
    if (open.length > 0) return;
    const id = uuidv7();
    await tx.insert(csatSurveys).values({
      id,
      organizationId: row.organizationId,
      conversationId: row.id,
      channelId: row.channelId,
      contactId: row.contactId,
      assigneeUserId: row.assigneeUserId,
      status: 'pending',
      requestedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    await deps.queue.enqueue(tx, 'conversation.csat', { survey_id: id, step: 'request' }, { singletonKey: `request:${id}` });
  };
}

export type CsatSendDeps = { db: Db; clock: Clock; messages: MessageDeps; logger?: Pick<Logger, 'warn'> };

/**
 * The `conversation.csat` job. `request`: sends a pending survey's request (once: the idempotency key is
 * the survey's), then marks it sent with its time to answer, or not_sent with the refusal's code.
 * `thanks`: sends the thanks of an answered survey, once.
 */
export async function sendCsat(deps: CsatSendDeps, input: { surveyId: string; step: 'request' | 'thanks' }): Promise<void> {
  const [row] = await deps.db
    .select({ survey: csatSurveys, peerPhone: conversations.peerPhone })
    .from(csatSurveys)
    .innerJoin(conversations, eq(conversations.id, csatSurveys.conversationId))
    .where(eq(csatSurveys.id, input.surveyId))
    .limit(1);
  if (!row) return;
  const { survey } = row;
  if (input.step === 'request' ? survey.status !== 'pending' : survey.status !== 'answered') return;
  const settings = await loadCsatSettings(deps.db, survey.organizationId);
  const actor: Actor = { kind: 'system', organizationId: survey.organizationId, permissions: new Set(PERMISSIONS) };
  const base = { channelId: survey.channelId, to: `+${row.peerPhone}`, conversationId: survey.conversationId };
  if (input.step === 'thanks') {
    if (!settings.thanks_message) return;
    const key = `parley:csat-thanks:${survey.id}`;
    const outcome = await acceptMessageOnce(deps.messages, actor, {
      ...base,
      type: 'text',
      content: { body: settings.thanks_message },
      idempotency: { key, requestHash: key },
    });
    if (outcome.refusal) deps.logger?.warn({ survey_id: survey.id, refusal: outcome.refusal }, 'the survey thanks was not sent');
    return;
  }
  const key = `parley:csat:${survey.id}`;
  const outcome = await acceptMessageOnce(deps.messages, actor, {
    ...base,
    type: 'list',
    content: requestContent(settings),
    idempotency: { key, requestHash: key },
  });
  const now = deps.clock.now();
  await deps.db
    .update(csatSurveys)
    .set(
      outcome.refusal
        ? { status: 'not_sent', reason: outcome.refusal === 'send_refused' ? outcome.code : outcome.refusal, updatedAt: now }
        : {
            status: 'sent',
            requestMessageId: outcome.message.id,
            expiresAt: new Date(now.getTime() + settings.expire_hours * 3_600_000),
            updatedAt: now,
          },
    )
    .where(and(eq(csatSurveys.id, survey.id), eq(csatSurveys.status, 'pending')));
}

/**
 * Takes an inbound message of a resolved conversation as the answer to its open survey, in the
 * transaction storing it. Answers null when it is none (costing nothing for a conversation that is not
 * resolved); otherwise `finish`, to call once the message is recorded (after its message.new): the
 * survey answered, the rating on the conversation, `csat.submitted`, and the thanks enqueued. The
 * conversation stays resolved (the caller touches it as an answer).
 */
export function createCsatAnswerRecorder(deps: { queue: Queue }): InboundCsatRecorder {
  return async (tx, conversation, message, at) => {
    if (conversation.status !== 'resolved') return null;
    const [survey] = await tx
      .select()
      .from(csatSurveys)
      .where(and(eq(csatSurveys.conversationId, conversation.id), eq(csatSurveys.status, 'sent'), gt(csatSurveys.expiresAt, at)))
      .orderBy(desc(csatSurveys.requestedAt))
      .limit(1)
      .for('update');
    if (!survey) return null;
    const settings = await loadCsatSettings(tx, conversation.organizationId);
    const answer = ratingOf(settings, message.type, message.content);
    if (!answer) return null;
    return {
      async finish() {
        await tx
          .update(csatSurveys)
          .set({
            status: 'answered',
            rating: answer.rating,
            comment: answer.comment,
            answerMessageId: message.id,
            answeredAt: at,
            updatedAt: at,
          })
          .where(eq(csatSurveys.id, survey.id));
        await tx.update(conversations).set({ csatRating: answer.rating, csatAnsweredAt: at }).where(eq(conversations.id, conversation.id));
        await recordEvent(
          tx,
          conversation.organizationId,
          'csat.submitted',
          {
            survey_id: survey.id,
            conversation_id: conversation.id,
            contact_id: survey.contactId,
            channel_id: survey.channelId,
            assignee_user_id: survey.assigneeUserId,
            rating: answer.rating,
            comment: answer.comment,
            message_id: message.id,
            organization_id: conversation.organizationId,
            answered_at: at.toISOString(),
          },
          at,
        );
        if (settings.thanks_message)
          await deps.queue.enqueue(
            tx,
            'conversation.csat',
            { survey_id: survey.id, step: 'thanks' },
            { singletonKey: `thanks:${survey.id}` },
          );
      },
    };
  };
}

/** The surveys of a conversation, newest first. */
export async function listConversationSurveys(deps: { db: Executor }, actor: Actor, conversationId: string): Promise<CsatSurveyRow[]> {
  const conversation = await loadConversation(deps, actor, conversationId);
  return deps.db
    .select()
    .from(csatSurveys)
    .where(eq(csatSurveys.conversationId, conversation.id))
    .orderBy(desc(csatSurveys.requestedAt), desc(csatSurveys.id))
    .limit(100);
}

export type CsatResponseFilters = {
  channelId?: string;
  assigneeUserId?: string;
  ratings?: number[];
  since?: Date;
  until?: Date;
};

/** The organization's answered surveys, newest answer first, filtered. */
export async function listCsatResponses(
  deps: { db: Executor },
  actor: Actor,
  filters: CsatResponseFilters,
  page: Page,
): Promise<PageResult<CsatSurveyRow>> {
  for (const id of [filters.channelId, filters.assigneeUserId]) if (id !== undefined && !isUuid(id)) return emptyPage();
  return listPage(deps.db.select().from(csatSurveys).$dynamic(), {
    where: [
      eq(csatSurveys.organizationId, actor.organizationId),
      eq(csatSurveys.status, 'answered'),
      ...equalWhereGiven([
        [csatSurveys.channelId, filters.channelId?.toLowerCase()],
        [csatSurveys.assigneeUserId, filters.assigneeUserId?.toLowerCase()],
      ]),
      given(filters.ratings?.length ? filters.ratings : undefined, (r) => inArray(csatSurveys.rating, r)),
      given(filters.since, (t) => gte(csatSurveys.answeredAt, t)),
      given(filters.until, (t) => lte(csatSurveys.answeredAt, t)),
    ],
    order: newestFirstBy(csatSurveys.answeredAt, csatSurveys.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
    keyOf: (row) => ({ t: row.answeredAt!, id: row.id }),
  });
}
