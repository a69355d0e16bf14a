/**
 * Message templates of official channels. Status values: draft (made here, not submitted), pending,
 * approved, rejected, paused, disabled. Every change of status records `template.status_update`; the
 * provider's quality reports are kept on the template (`quality`, with `template.quality_update`) and
 * its last report of any kind as its note (`provider_note`).
 */
import { and, eq, or } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { emptyPage, equalWhereGiven, listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { templates } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import { PROVIDER_TEMPLATE_STATUSES, type InboundEvent, type Platform, type ProviderError } from '../../providers/provider.ts';
import type { Actor } from '../actor.ts';
import { assertOperation } from '../channels/capabilities.ts';
import { connectionOf, loadChannel, recordProviderFault, type ChannelRow } from '../channels/channels.ts';
import { DomainError, conflict, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';

export type TemplateRow = typeof templates.$inferSelect;

export const TEMPLATE_STATUSES = ['draft', ...PROVIDER_TEMPLATE_STATUSES] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** The provider's quality report: its score (GREEN, YELLOW, RED, UNKNOWN), whether it flagged the template, and why. */
export type TemplateQuality = NonNullable<TemplateRow['quality']>;
/** The provider's last report on the template: its own name of the event, its reason, when it arrived. */
export type TemplateNote = NonNullable<TemplateRow['providerNote']>;
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;

export type TemplateDeps = { db: Db; clock: Clock; sealer: Sealer; providers: ProviderRegistry };

function providerFailure(error: ProviderError): DomainError {
  return new DomainError(error.retryable ? 'unavailable' : 'unsupported', `provider refused: ${error.title} (code ${error.code})`, {
    extra: { provider_error: { code: error.code, title: error.title } },
  });
}

export async function listTemplates(
  deps: { db: Executor },
  actor: Actor,
  input: Page & { channelId?: string; status?: string; name?: string; language?: string; category?: string },
): Promise<PageResult<TemplateRow>> {
  if (input.channelId !== undefined && !isUuid(input.channelId)) return emptyPage();
  return listPage(deps.db.select().from(templates).$dynamic(), {
    where: [
      eq(templates.organizationId, actor.organizationId),
      ...equalWhereGiven([
        [templates.channelId, input.channelId],
        [templates.status, input.status],
        [templates.name, input.name],
        [templates.language, input.language],
        [templates.category, input.category],
      ]),
    ],
    order: newestFirstBy(templates.createdAt, templates.id),
    after: cursorKey(input.cursor),
    limit: input.limit,
  });
}

/** A template of the actor's organization; another organization's id is simply not found. */
export async function loadTemplate(deps: { db: Executor }, actor: Actor, templateId: string): Promise<TemplateRow> {
  if (!isUuid(templateId)) throw notFound('template');
  const [row] = await deps.db
    .select()
    .from(templates)
    .where(and(eq(templates.id, templateId), eq(templates.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('template');
  return row;
}

export type CreateTemplateInput = { channelId: string; name: string; language: string; category: string; components: unknown[] };

/** Makes a draft template on an official channel, to be submitted for approval. */
export async function createTemplate(
  deps: Pick<TemplateDeps, 'db' | 'clock'>,
  actor: Actor,
  input: CreateTemplateInput,
): Promise<TemplateRow> {
  const channel = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(channel.platform as Platform, 'templates.submit', 'templates');
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(templates)
    .values({
      id: uuidv7(),
      organizationId: actor.organizationId,
      channelId: channel.id,
      name: input.name,
      language: input.language,
      category: input.category,
      components: input.components,
      status: 'draft',
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw conflict(`template ${input.name} (${input.language}) exists on this channel`);
  return row;
}

/** Sends a template to the provider for approval; its decision arrives later as a webhook. */
export async function submitTemplate(deps: TemplateDeps, actor: Actor, templateId: string): Promise<TemplateRow> {
  const template = await loadTemplate(deps, actor, templateId);
  const channel = await loadChannel(deps.db, actor, template.channelId);
  const platform = channel.platform as Platform;
  assertOperation(platform, 'templates.submit', 'template submit');
  if (template.status !== 'draft' && template.status !== 'rejected') {
    throw conflict(`template is ${template.status}; only draft or rejected templates can be submitted`);
  }
  const adapter = deps.providers.get(platform);
  const result = await adapter.submitTemplate!(connectionOf(channel, deps.sealer), {
    name: template.name,
    language: template.language,
    category: template.category,
    components: template.components,
  });
  if (!result.ok) {
    await recordProviderFault(deps, channel, result.error);
    throw providerFailure(result.error);
  }
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(templates)
      .set({ providerTemplateId: result.value.providerTemplateId, submittedAt: now, updatedAt: now })
      .where(eq(templates.id, template.id))
      .returning();
    return setTemplateStatus(tx, row!, result.value.status, null, now);
  });
}

async function setTemplateStatus(tx: Executor, row: TemplateRow, status: string, reason: string | null, at: Date): Promise<TemplateRow> {
  if (row.status === status && row.rejectionReason === reason) return row;
  const [updated] = await tx
    .update(templates)
    .set({ status, rejectionReason: reason, updatedAt: at })
    .where(eq(templates.id, row.id))
    .returning();
  if (row.status !== status) await recordEvent(tx, row.organizationId, 'template.status_update', { template_id: row.id, status }, at);
  return updated!;
}

export type SyncResult = { created: number; updated: number; unchanged: number; templates: TemplateRow[] };

/** Pulls the channel's templates from the provider and stores them; status changes record events. */
export async function syncTemplates(deps: TemplateDeps, actor: Actor, channelId: string): Promise<SyncResult> {
  const channel = await loadChannel(deps.db, actor, channelId);
  const platform = channel.platform as Platform;
  assertOperation(platform, 'templates.sync', 'template sync');
  const result = await deps.providers.get(platform).listTemplates!(connectionOf(channel, deps.sealer));
  if (!result.ok) {
    await recordProviderFault(deps, channel, result.error);
    throw providerFailure(result.error);
  }
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const counts = { created: 0, updated: 0, unchanged: 0 };
    const out: TemplateRow[] = [];
    for (const t of result.value) {
      const [existing] = await tx
        .select()
        .from(templates)
        .where(
          and(
            eq(templates.channelId, channel.id),
            or(eq(templates.providerTemplateId, t.providerTemplateId), and(eq(templates.name, t.name), eq(templates.language, t.language))),
          ),
        )
        .limit(1);
      if (!existing) {
        const [row] = await tx
          .insert(templates)
          .values({
            id: uuidv7(),
            organizationId: channel.organizationId,
            channelId: channel.id,
            name: t.name,
            language: t.language,
            category: t.category,
            components: t.components,
            status: t.status,
            rejectionReason: t.reason ?? null,
            providerTemplateId: t.providerTemplateId,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        await recordEvent(tx, channel.organizationId, 'template.status_update', { template_id: row!.id, status: t.status }, now);
        counts.created++;
        out.push(row!);
        continue;
      }
      const sameContent =
        JSON.stringify(existing.components) === JSON.stringify(t.components) &&
        existing.category === t.category &&
        existing.providerTemplateId === t.providerTemplateId;
      let row = existing;
      if (!sameContent) {
        [row] = (await tx
          .update(templates)
          .set({ components: t.components, category: t.category, providerTemplateId: t.providerTemplateId, updatedAt: now })
          .where(eq(templates.id, existing.id))
          .returning()) as [TemplateRow];
      }
      const after = await setTemplateStatus(tx, row, t.status, t.reason ?? null, now);
      if (sameContent && after === row) counts.unchanged++;
      else counts.updated++;
      out.push(after);
    }
    return { ...counts, templates: out };
  });
}

/** A provider's report on a template (from its webhook): a status event, a category or a quality score. */
export type TemplateReport = Extract<InboundEvent, { kind: 'template.status' | 'template.category' | 'template.quality' }>;

/** The stored template a report names (by the provider's id, or by name and language), on that channel. */
async function reportedTemplate(tx: Executor, channel: ChannelRow, report: TemplateReport): Promise<TemplateRow | undefined> {
  const [found] = await tx
    .select()
    .from(templates)
    .where(
      and(
        eq(templates.channelId, channel.id),
        report.name && report.language
          ? or(
              eq(templates.providerTemplateId, report.providerTemplateId),
              and(eq(templates.name, report.name), eq(templates.language, report.language)),
            )
          : eq(templates.providerTemplateId, report.providerTemplateId),
      ),
    )
    .limit(1);
  return found;
}

const isTemplateStatus = (value: unknown): value is TemplateStatus => (TEMPLATE_STATUSES as readonly unknown[]).includes(value);

/**
 * Applies a provider's report on a template of the channel (undefined when the channel stores no such
 * template). A status event gives the status its platform mapped it to (with its reason), or keeps it:
 * a flag raises the quality warning and a reinstatement lifts it, an archived template keeps the
 * status it had for its unarchiving, and an event the provider does not document changes nothing but
 * the note. Every status event becomes the template's note; a category report changes the category, a
 * quality report the score.
 */
export async function applyTemplateReport(
  tx: Executor,
  channel: ChannelRow,
  report: TemplateReport,
  at: Date,
): Promise<TemplateRow | undefined> {
  const row = await reportedTemplate(tx, channel, report);
  if (!row) return undefined;
  const next: Pick<TemplateRow, 'status' | 'rejectionReason' | 'category' | 'quality' | 'providerNote'> = {
    status: row.status,
    rejectionReason: row.rejectionReason,
    category: row.category,
    quality: row.quality,
    providerNote: row.providerNote,
  };
  const quality = (change: Partial<TemplateQuality>): TemplateQuality => ({
    score: row.quality?.score ?? null,
    flagged: row.quality?.flagged ?? false,
    reason: row.quality?.reason ?? null,
    ...change,
    updated_at: at.toISOString(),
  });
  switch (report.kind) {
    case 'template.category':
      next.category = report.category;
      break;
    case 'template.quality':
      next.quality = quality({ score: report.quality });
      break;
    case 'template.status': {
      // A report stored by an earlier version names no event, and may name a status of the provider's
      // own (lower-cased): that one is a note only.
      const given: string | undefined = report.status;
      const status = given !== undefined && (PROVIDER_TEMPLATE_STATUSES as readonly string[]).includes(given) ? report.status : undefined;
      report = { ...report, status, event: report.event ?? given?.toUpperCase() ?? 'UNKNOWN' };
      if (report.category) next.category = report.category;
      const before = row.providerNote;
      // The status an archived template had, kept until it is unarchived (or decided anew): an archived
      // template reported archived again, or reported on without a decision, keeps it.
      const saved = report.archive
        ? row.status === 'disabled'
          ? before?.status_before_archive
          : row.status
        : !report.status && !report.restore
          ? before?.status_before_archive
          : undefined;
      next.providerNote = {
        event: report.event,
        reason: report.reason ?? null,
        received_at: at.toISOString(),
        ...(saved ? { status_before_archive: saved } : {}),
      };
      const restored = report.restore ? before?.status_before_archive : undefined;
      if (report.status) {
        next.status = report.status;
        // Archiving keeps the reason the template had (a rejection's), for its unarchiving; the note says why.
        if (!report.archive) next.rejectionReason = report.reason ?? null;
      } else if (restored && isTemplateStatus(restored)) next.status = restored;
      if (report.flagged !== undefined)
        next.quality = quality({ flagged: report.flagged, reason: report.flagged ? (report.reason ?? null) : null });
      break;
    }
    default:
      return report satisfies never;
  }
  return writeTemplate(tx, row, next, at);
}

/** Writes a template's new state with the events it causes: template.status_update, template.quality_update. */
async function writeTemplate(
  tx: Executor,
  row: TemplateRow,
  next: Pick<TemplateRow, 'status' | 'rejectionReason' | 'category' | 'quality' | 'providerNote'>,
  at: Date,
): Promise<TemplateRow> {
  const [updated] = await tx
    .update(templates)
    .set({ ...next, updatedAt: at })
    .where(eq(templates.id, row.id))
    .returning();
  if (row.status !== next.status)
    await recordEvent(tx, row.organizationId, 'template.status_update', { template_id: row.id, status: next.status }, at);
  const q = next.quality;
  if (
    q &&
    (q.score !== (row.quality?.score ?? null) ||
      q.flagged !== (row.quality?.flagged ?? false) ||
      q.reason !== (row.quality?.reason ?? null))
  )
    await recordEvent(
      tx,
      row.organizationId,
      'template.quality_update',
      { template_id: row.id, status: next.status, quality_score: q.score, flagged: q.flagged, reason: q.reason },
      at,
    );
  return updated!;
}

/**
 * Sets the status the provider gave a template in answer to a send of it (paused or disabled), with
 * its reason, on the channel's stored template of that name and language; later sends of it are then
 * refused like any template that is not approved. Undefined when the channel stores no such template.
 */
export async function holdTemplateAfterSend(
  deps: { db: Db; clock: Clock },
  channel: Pick<ChannelRow, 'id'>,
  template: { name: string; language: string },
  status: 'paused' | 'disabled',
  reason: string,
): Promise<TemplateRow | undefined> {
  const now = deps.clock.now();
  return deps.db.transaction((tx) => holdTemplate(tx, channel, template, status, reason, now));
}

/** The same, in the caller's transaction (a failed-status report naming the hold). */
export async function holdTemplate(
  tx: Executor,
  channel: Pick<ChannelRow, 'id'>,
  template: { name: string; language: string },
  status: 'paused' | 'disabled',
  reason: string,
  at: Date,
): Promise<TemplateRow | undefined> {
  const [row] = await tx
    .select()
    .from(templates)
    .where(and(eq(templates.channelId, channel.id), eq(templates.name, template.name), eq(templates.language, template.language)))
    .limit(1);
  return row ? setTemplateStatus(tx, row, status, reason, at) : undefined;
}
