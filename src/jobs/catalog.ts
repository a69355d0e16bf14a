/**
 * Every background job, by name: its payload schema and its retry policy. Jobs carry ids, not
 * data; handlers reload what they need.
 */
import { z } from 'zod';
import type { Queue } from 'pg-boss';
import { MEDIA_DOWNLOAD_ATTEMPTS } from '../domain/messages/media.ts';

type QueueOptions = Omit<Queue, 'name'>;

export type JobDefinition<S extends z.ZodType> = {
  payload: S;
  queue: QueueOptions;
  /** Workers per process (default 1). */
  concurrency?: number;
  /**
   * Jobs each worker fetches at once (default 1), each settled on its own; the handler may take them
   * together (a BatchJobHandler, jobs/queue.ts) or one after another.
   */
  batchSize?: number;
  /** A cron schedule (UTC) for periodic jobs. */
  cron?: string;
};

/**
 * Jobs that carry the message flow send a heartbeat this often: one held by a worker that died
 * (SIGKILL, a lost machine) is retried after a missed heartbeat (pg-boss's monitor runs every 10 s),
 * not after its expiry a minute or two later.
 */
const HEARTBEAT_SECONDS = 10;

/**
 * A finished job (completed, failed or cancelled) is deleted this long after it finished, unless its
 * kind says otherwise. Jobs carry ids only: what they act on (provider events, messages and their
 * history, webhook deliveries) is kept by its own table's retention, and a failure is logged when it
 * happens. pg-boss's default keeps finished jobs 7 days and runs its deletion once a day, so the job
 * table grew by every job the message flow made (about 1.4 a message) and pg-boss's supervision,
 * which scans that table every 10 s, slowed with it (DECISIONS 58).
 */
export const FINISHED_JOB_SECONDS = 5 * 60;

function job<S extends z.ZodType>(definition: JobDefinition<S>): JobDefinition<S> {
  return { ...definition, queue: { deleteAfterSeconds: FINISHED_JOB_SECONDS, ...definition.queue } };
}

export const JOBS = {
  /** End the wait for a status naming a send whose answer was lost (a provider that cannot be asked): fail it unless one arrived. */
  'message.reconcile': job({
    payload: z.object({ message_id: z.uuid() }),
    queue: { retryLimit: 3, retryDelay: 30, expireInSeconds: 60 },
  }),
  /**
   * Process one verified provider webhook delivery (stored in provider_events). A status that names a
   * message whose provider id is not known yet (its send's answer was lost and is being settled) is
   * retried at most 10 s apart through the handler's two-minute grace, so it applies soon after.
   */
  'provider.inbound': job({
    payload: z.object({ provider_event_id: z.uuid() }),
    queue: {
      retryLimit: 20,
      retryDelay: 2,
      retryBackoff: true,
      retryDelayMax: 10,
      expireInSeconds: 120,
      heartbeatSeconds: HEARTBEAT_SECONDS,
      notify: true,
    },
    concurrency: 4,
    batchSize: 10,
  }),
  /**
   * Download an inbound message's media from its provider and keep it in the media store
   * (domain/messages/inbound-media.ts): a provider fault is retried with backoff, from 5 s to 10
   * minutes apart, MEDIA_DOWNLOAD_ATTEMPTS times in all; a 100 MB document may take minutes, so a
   * run may last 15 (a worker that dies mid-download is noticed by its missed heartbeat).
   */
  'message.media': job({
    payload: z.object({ message_id: z.uuid() }),
    queue: {
      retryLimit: MEDIA_DOWNLOAD_ATTEMPTS - 1,
      retryDelay: 5,
      retryBackoff: true,
      retryDelayMax: 600,
      expireInSeconds: 900,
      heartbeatSeconds: HEARTBEAT_SECONDS,
      notify: true,
    },
    concurrency: 2,
  }),
  /**
   * Reject a call as it rings, on a channel whose `reject_calls` setting is on (domain/calls/reject.ts),
   * and send the setting's message. A call rings for a minute at most: few, quick retries.
   */
  'call.reject': job({
    payload: z.object({ message_id: z.uuid() }),
    queue: { retryLimit: 2, retryDelay: 2, expireInSeconds: 60, notify: true },
  }),
  /**
   * Send the away message and/or greeting an inbound message was owed (domain/business-hours/auto-replies.ts):
   * decided in the transaction storing it; each send is behind an idempotency key, so a retry sends nothing twice.
   */
  'conversation.auto-reply': job({
    payload: z.object({ message_id: z.uuid(), greeting: z.boolean(), away: z.boolean() }),
    queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60, notify: true },
  }),
  /** A satisfaction survey's request, or its thanks after the answer (domain/csat/surveys.ts). */
  'conversation.csat': job({
    payload: z.object({ survey_id: z.uuid(), step: z.enum(['request', 'thanks']) }),
    queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60, notify: true },
  }),
  /**
   * POST a bot delivery's customer messages to its bot (domain/bots/deliver.ts): enqueued with each message
   * the delivery gathers (after its debounce); a failed attempt is retried with backoff, about 2 s to 10 minutes
   * apart, 12 retries over about 45 minutes; the delivery's id is the webhook-id the bot dedupes by.
   */
  'bot.deliver': job({
    payload: z.object({ delivery_id: z.uuid() }),
    queue: { retryLimit: 12, retryDelay: 2, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 60, notify: true },
  }),
  /** End the bot sessions whose customer was silent for their bot's expire_minutes (domain/bots/sessions.ts). */
  'bots.expire': job({
    payload: z.object({}),
    queue: { retryLimit: 0, expireInSeconds: 120 },
    cron: '* * * * *',
  }),
  /** Check every connected channel's provider still answers; mark silent ones disconnected. */
  'channel.watchdog': job({
    /** `start`: the check a worker asks for as it starts (its failures do not count toward the disconnect limit). */
    payload: z.object({ start: z.boolean().optional() }),
    queue: { retryLimit: 0, expireInSeconds: 120 },
    cron: '* * * * *',
  }),
  /**
   * The sandbox provider calling back (status updates, template decisions, inbound messages, pairing):
   * one job per callback, naming the sandbox row it reports on (and the step, for statuses). Status
   * jobs are taken in batches and delivered as one callback per account carrying many statuses, as
   * the official webhooks do; the next step of a batch is one job naming its messages (message_ids).
   */
  'sandbox.callback': job({
    payload: z.discriminatedUnion('kind', [
      z.object({
        kind: z.literal('message.status'),
        /** One message (a send's first step) ... */
        message_id: z.string().min(1).optional(),
        /** ... or many (the next step of a batch delivered together). */
        message_ids: z.array(z.string().min(1)).min(1).max(1000).optional(),
        status: z.enum(['sent', 'delivered', 'read', 'failed']),
      }),
      z.object({ kind: z.literal('message.inbound'), message_id: z.string().min(1) }),
      // The business's phone and the senders (sandbox/phone.ts): when it happened, however late it is delivered.
      z.object({ kind: z.literal('message.echo'), message_id: z.string().min(1), at: z.iso.datetime() }),
      z.object({ kind: z.literal('message.edited'), message_id: z.string().min(1), body: z.string().min(1), at: z.iso.datetime() }),
      z.object({ kind: z.literal('message.deleted'), message_id: z.string().min(1), at: z.iso.datetime() }),
      // A customer's call (sandbox/calls.ts): it rings (offer), then how it ended.
      z.object({
        kind: z.literal('call'),
        call_id: z.string().min(1),
        status: z.enum(['offer', 'accept', 'reject', 'timeout', 'terminate']),
        at: z.iso.datetime(),
      }),
      z.object({
        kind: z.literal('template.status'),
        template_id: z.string().min(1),
        /** A report the provider makes later (sandbox/template-events.ts); absent: the template's review decision. */
        event: z.string().min(1).optional(),
        reason: z.string().optional(),
        other_info: z.object({ title: z.string(), description: z.string() }).optional(),
        rejection_info: z.object({ reason: z.string(), recommendation: z.string() }).optional(),
        disable_date: z.number().int().optional(),
      }),
      // A gateway event about groups, presence, labels or chats (sandbox/gateway/groups.ts, labels.ts, chats.ts): its callback's event and payload as they go out.
      z.object({
        kind: z.literal('gateway.event'),
        session_id: z.string().min(1),
        event: z.enum(['group.update', 'presence', 'label.edit', 'label.association', 'chat.update', 'message', 'message.starred']),
        payload: z.record(z.string(), z.unknown()),
        at: z.iso.datetime(),
      }),
      z.object({
        kind: z.literal('session.status'),
        session_id: z.string().min(1),
        status: z.enum(['STOPPED', 'STARTING', 'SCAN_QR', 'WORKING', 'FAILED']),
        /** When the session changed (the callback's timestamp, however late it is delivered); absent in jobs from earlier versions. */
        at: z.iso.datetime().optional(),
      }),
    ]),
    queue: {
      retryLimit: 8,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: 60,
      expireInSeconds: 60,
      heartbeatSeconds: HEARTBEAT_SECONDS,
      notify: true,
    },
    // Two workers: while one delivers a batch the next gathers, so batches grow with the load.
    concurrency: 2,
    batchSize: 100,
  }),
  'maintenance.purge-sessions': job({
    payload: z.object({}),
    queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
    cron: '17 * * * *',
  }),
  /**
   * Analyze the tables that grew, where autovacuum does not (PGlite, or a server with it off): stale
   * statistics froze cached plans made while the tables were small (db/analyze.ts).
   */
  'maintenance.analyze': job({
    payload: z.object({}),
    queue: { retryLimit: 0, expireInSeconds: 300 },
    cron: '* * * * *',
  }),
  /**
   * Record crm.task.due for the open tasks whose due time has passed, once each (domain/tasks/due.ts):
   * every minute, so a reminder comes within about a minute of its time.
   */
  'crm.tasks-due': job({
    payload: z.object({}),
    queue: { retryLimit: 3, retryDelay: 10, expireInSeconds: 300 },
    cron: '* * * * *',
  }),
  /**
   * Send the broadcasts that are due (domain/broadcasts/runner.ts): every minute (a paced broadcast's
   * next share), and at once when one is scheduled or resumed. A broadcast is leased, so runs on two
   * workers never take one together; one killed mid-run leaves its lease to lapse.
   */
  'broadcasts.run': job({
    payload: z.object({}),
    queue: { retryLimit: 3, retryDelay: 10, expireInSeconds: 900 },
    cron: '* * * * *',
  }),
  /**
   * Open the snoozed conversations whose snoozed_until has passed, each recording
   * conversation.status_changed once (domain/messages/conversations.ts): every minute.
   */
  'conversations.wake': job({
    payload: z.object({}),
    queue: { retryLimit: 3, retryDelay: 10, expireInSeconds: 300 },
    cron: '* * * * *',
  }),
  /**
   * Run the automation rules an event triggers (domain/automations/triggers.ts): enqueued by the
   * webhook dispatcher in the transaction that sequences the event; each rule's run is unique per
   * event, so a retry resumes a run instead of acting twice.
   */
  'automations.event': job({
    payload: z.object({ event_id: z.uuid() }),
    queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, retryDelayMax: 120, expireInSeconds: 300, notify: true },
    concurrency: 2,
  }),
  /** Run the no_reply automation rules whose wait has passed (domain/automations/triggers.ts): every minute. */
  'automations.no-reply': job({
    payload: z.object({}),
    queue: { retryLimit: 3, retryDelay: 10, expireInSeconds: 300 },
  }),
  /**
   * Assign a team's queue under its policy (domain/teams/assignment.ts): enqueued when a conversation
   * joins the queue, a member comes online or frees capacity, or the team changes; one waiting per team
   * (stately, keyed by the team). Without a team (the sweep every minute): every team with a queue.
   */
  'conversations.assign': job({
    payload: z.object({ team_id: z.uuid().optional() }),
    queue: { policy: 'stately', retryLimit: 3, retryDelay: 5, expireInSeconds: 300, notify: true },
    cron: '* * * * *',
  }),
  /** Delete events, webhook deliveries and attempts past EVENT_RETENTION_DAYS. */
  'webhooks.cleanup': job({
    payload: z.object({}),
    queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 900 },
    cron: '41 * * * *',
  }),
} as const;

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName> = z.infer<(typeof JOBS)[N]['payload']>;
export const JOB_NAMES = Object.keys(JOBS) as JobName[];
