/**
 * What a rule sees when it runs (or a dry run): the conversation, its contact and the triggering
 * message's text; and each condition held against them. Contact conditions go through the segments'
 * own compiler (one query on the contact); message text through text-match.ts.
 */
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { contacts, conversations, messages } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isOpen } from '../business-hours/hours.ts';
import { effectiveBusinessHours } from '../business-hours/settings.ts';
import { labelsOf } from '../messages/conversations.ts';
import { compileFilter } from '../segments/compile.ts';
import type { FilterGroup } from '../segments/filter.ts';
import type { Condition } from './rules.ts';
import { textMatches } from './text-match.ts';

export type RunContext = {
  organizationId: string;
  conversation: { id: string; channelId: string; contactId: string | null; peerPhone: string; status: string } | null;
  /** The triggering message's text (a sample's in a dry run); null when the trigger has no message. */
  text: string | null;
  messageId: string | null;
};

export type ConditionResult = { index: number; kind: Condition['kind']; matched: boolean; detail?: string };

/** The text a message's condition reads: its body, caption or the title of the button pressed. */
export function textOf(content: Record<string, unknown>): string {
  for (const key of ['body', 'caption', 'title', 'text']) {
    const value = content[key];
    if (typeof value === 'string') return value;
  }
  return '';
}

/** The conversation of the organization (null when there is none by that id). */
export async function loadConversationContext(db: Executor, organizationId: string, conversationId: string) {
  const [row] = await db
    .select({
      id: conversations.id,
      channelId: conversations.channelId,
      contactId: conversations.contactId,
      peerPhone: conversations.peerPhone,
      status: conversations.status,
    })
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.organizationId, organizationId)))
    .limit(1);
  return row ?? null;
}

/** A message of the organization with its text, or null. */
export async function loadMessageText(db: Executor, organizationId: string, messageId: string): Promise<string | null> {
  const [row] = await db
    .select({ content: messages.content })
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.organizationId, organizationId)))
    .limit(1);
  return row ? textOf(row.content) : null;
}

/** Each condition held against the context, in order (all are evaluated, so a dry run shows every one). */
export async function evaluateConditions(
  deps: { db: Executor; clock: Clock },
  context: RunContext,
  conditions: Condition[],
): Promise<ConditionResult[]> {
  const now = deps.clock.now();
  const conversation = context.conversation;
  let labels: Set<string> | undefined;
  const results: ConditionResult[] = [];
  for (const [index, c] of conditions.entries()) {
    const result = (matched: boolean, detail?: string): ConditionResult => ({
      index,
      kind: c.kind,
      matched,
      ...(detail ? { detail } : {}),
    });
    switch (c.kind) {
      case 'contact': {
        const contactId = conversation?.contactId;
        if (!contactId) {
          results.push(result(false, 'the conversation has no contact'));
          break;
        }
        const [hit] = await deps.db
          .select({ id: contacts.id })
          .from(contacts)
          .where(
            and(
              eq(contacts.id, contactId),
              eq(contacts.organizationId, context.organizationId),
              compileFilter(c.filter as unknown as FilterGroup, { organizationId: context.organizationId, now }),
            ),
          )
          .limit(1);
        results.push(result(hit !== undefined));
        break;
      }
      case 'message':
        results.push(
          context.text === null
            ? result(false, 'the trigger has no message')
            : result(textMatches(context.text, c.op, c.value, c.case_sensitive ?? false)),
        );
        break;
      case 'business_hours': {
        if (!conversation) {
          results.push(result(false, 'no conversation'));
          break;
        }
        const settings = (await effectiveBusinessHours(deps.db, conversation.channelId))?.effective;
        const open = settings ? isOpen(settings, now) : true;
        results.push(result((c.value === 'open') === open, open ? 'open now' : 'closed now'));
        break;
      }
      case 'channel':
        results.push(result(conversation !== null && c.channel_ids.map((id) => id.toLowerCase()).includes(conversation.channelId)));
        break;
      case 'labels': {
        if (!conversation) {
          results.push(result(false, 'no conversation'));
          break;
        }
        labels ??= new Set(((await labelsOf(deps.db, [conversation.id])).get(conversation.id) ?? []).map((l) => l.id));
        const ids = c.label_ids.map((id) => id.toLowerCase());
        const has = ids.filter((id) => labels!.has(id)).length;
        const matched = c.op === 'has_any' ? has > 0 : c.op === 'has_all' ? has === ids.length : has === 0;
        results.push(result(matched));
        break;
      }
      default:
        c satisfies never;
    }
  }
  return results;
}

/** Automated messages sent to the conversation in the hour before `now` (the loop guard counts them). */
export async function automatedMessagesLastHour(db: Executor, conversationId: string, now: Date): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select coalesce(sum(automated_messages), 0)::int as n from automation_runs
         where conversation_id = ${conversationId} and automated_messages > 0
           and created_at > ${new Date(now.getTime() - 3_600_000).toISOString()}::timestamptz`,
  );
  return Number(row?.n ?? 0);
}
