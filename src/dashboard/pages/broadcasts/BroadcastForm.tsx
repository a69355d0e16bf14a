/**
 * A broadcast made in steps: channel, template (with its body filled for a sample contact), audience
 * (with its count, asked of the server as it changes), schedule (now or a time in the organization's
 * time zone), pacing, then a review that saves the draft or schedules it. The draft is saved on the
 * server from the audience step on (the API counts only a saved audience), so /broadcasts/{id}/edit
 * opens it again where it was left; the step is in the address.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { allPages, ApiError, call, errorMessage } from '../../api.ts';
import { CheckboxField, formErrors, SelectField, TextField, type FormErrors } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey } from '../../query.ts';
import { Link, useNavigate, useParams, useSearchParams } from '../../router.tsx';
import { useCan, useSession } from '../../session.tsx';
import { ErrorMessage, Loading, PageHeader } from '../../ui.tsx';
import { contactsApi } from '../contacts/api.ts';
import { listsApi, segmentsApi } from '../crm/api.ts';
import type { TemplateRecord } from '../channels/api.ts';
import { useTemplateChannels } from '../channels/template-channels.ts';
import { inboxApi } from '../inbox/api.ts';
import { templateBody, templateSlots } from '../inbox/template-variables.ts';
import { broadcastsApi, type BroadcastAudience, type BroadcastRecord, type CreateBroadcastRequest } from './api.ts';
import { instantInZone, localInZone, previewBody } from './preview.ts';
import { skipReasonLabel } from './statuses.ts';

const STEPS = [
  { id: 'channel', label: 'Channel' },
  { id: 'template', label: 'Template' },
  { id: 'audience', label: 'Audience' },
  { id: 'schedule', label: 'Schedule' },
  { id: 'pacing', label: 'Pacing' },
  { id: 'review', label: 'Review' },
] as const;
type StepId = (typeof STEPS)[number]['id'];

/** The fields each step shows (by the API's JSON pointers): an error naming one is shown beside it. */
const STEP_FIELDS: Record<StepId, string[]> = {
  channel: ['/name', '/channel_id'],
  template: ['/template'],
  audience: ['/audience'],
  schedule: ['/send_at'],
  pacing: ['/per_minute', '/require_consent'],
  review: [],
};

/** The step that shows the field an API error names. */
function stepOfPointer(pointer: string): StepId | undefined {
  return STEPS.find((s) => STEP_FIELDS[s.id].some((p) => pointer === p || pointer.startsWith(`${p}/`)))?.id;
}

type Fields = {
  name: string;
  channelId: string;
  /** The template as `name|language` (a template is named by both). */
  template: string;
  variables: string[];
  segmentId: string;
  listId: string;
  tags: string;
  phones: string;
  sendLater: boolean;
  /** `datetime-local` in the organization's zone. */
  sendAt: string;
  perMinute: string;
  requireConsent: boolean;
};

const EMPTY: Fields = {
  name: '',
  channelId: '',
  template: '',
  variables: [],
  segmentId: '',
  listId: '',
  tags: '',
  phones: '',
  sendLater: false,
  sendAt: '',
  perMinute: '',
  requireConsent: false,
};

const splitList = (text: string, separator: RegExp) =>
  text
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);

function audienceOf(f: Fields): BroadcastAudience {
  const tags = splitList(f.tags, /,/);
  const phones = splitList(f.phones, /[\n,;]/);
  return {
    ...(f.segmentId ? { segment_id: f.segmentId } : {}),
    ...(f.listId ? { list_id: f.listId } : {}),
    ...(tags.length ? { tags } : {}),
    ...(phones.length ? { phones } : {}),
  };
}

function fieldsOf(b: BroadcastRecord, zone: string): Fields {
  return {
    name: b.name,
    channelId: b.channel_id,
    template: `${b.template.name}|${b.template.language}`,
    variables: b.template.variables,
    segmentId: b.audience.segment_id ?? '',
    listId: b.audience.list_id ?? '',
    tags: (b.audience.tags ?? []).join(', '),
    phones: (b.audience.phones ?? []).join('\n'),
    sendLater: b.send_at !== null,
    sendAt: b.send_at ? localInZone(b.send_at, zone) : '',
    perMinute: b.per_minute === null ? '' : String(b.per_minute),
    requireConsent: b.require_consent,
  };
}

/** The organization's time zone (its business hours' zone), else the member's own, else UTC; undefined while asked. */
function useOrganizationZone(): string | undefined {
  const session = useSession();
  const canRead = useCan('channels:read');
  const hours = useQuery({
    queryKey: orgKey('business-hours'),
    queryFn: () => call<{ data: { time_zone: string } }>('GET', '/v1/settings/business-hours').then((r) => r.data),
    enabled: canRead,
    staleTime: 60_000,
  });
  if (canRead && hours.isPending) return undefined;
  return hours.data?.time_zone ?? session.user.timezone ?? 'UTC';
}

/**
 * The create flow, for a new broadcast (`/broadcasts/new`) and a draft (`/broadcasts/{id}/edit`): one
 * component for both routes, so the form that saves a new draft and moves to the draft's address stays
 * the same form (what is typed meanwhile is kept).
 */
export function BroadcastFormPage() {
  const { broadcastId } = useParams();
  const zone = useOrganizationZone();
  const broadcast = useQuery({
    queryKey: orgKey('broadcasts', broadcastId),
    queryFn: () => broadcastsApi.get(broadcastId!),
    enabled: broadcastId !== undefined,
  });
  if (broadcastId !== undefined && broadcast.error && !broadcast.data) {
    return (
      <>
        <PageHeader title="Edit broadcast" />
        <ErrorMessage message={errorMessage(broadcast.error)} />
      </>
    );
  }
  if ((broadcastId !== undefined && !broadcast.data) || !zone) return <Loading />;
  if (broadcast.data && broadcast.data.status !== 'draft') {
    return (
      <>
        <PageHeader title={broadcast.data.name} />
        <p>
          Only a draft can be changed. <Link to={`/broadcasts/${broadcast.data.id}`}>See the broadcast</Link>.
        </p>
      </>
    );
  }
  return <BroadcastForm existing={broadcastId === undefined ? undefined : broadcast.data} zone={zone} />;
}

function BroadcastForm({ existing, zone }: { existing?: BroadcastRecord; zone: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const step: StepId = STEPS.some((s) => s.id === params.get('step')) ? (params.get('step') as StepId) : 'channel';
  const stepIndex = STEPS.findIndex((s) => s.id === step);
  const goTo = (id: StepId) => {
    const next = new URLSearchParams(params);
    next.set('step', id);
    setParams(next, { replace: true });
  };

  const [fields, setFields] = useState<Fields>(() => (existing ? fieldsOf(existing, zone) : EMPTY));
  const set = <K extends keyof Fields>(key: K, value: Fields[K]) => setFields((f) => ({ ...f, [key]: value }));
  const [saved, setSaved] = useState<BroadcastRecord | undefined>(existing);
  // The audience as last saved (as this form wrote it: the server may spell it its own way).
  const [savedAudienceKey, setSavedAudienceKey] = useState(() => (existing ? JSON.stringify(audienceOf(fields)) : undefined));
  const [localError, setLocalError] = useState<string | undefined>(undefined);

  const channels = useTemplateChannels();
  // The same query as the inbox's template picker (one cache entry per channel).
  const templates = useQuery({
    queryKey: orgKey('templates', 'approved', fields.channelId),
    queryFn: () => inboxApi.approvedTemplates(fields.channelId),
    enabled: fields.channelId !== '',
  });
  const template = templates.data?.find((t) => `${t.name}|${t.language}` === fields.template);
  const bodySlots = template ? templateSlots(template.components).filter((s) => s.component === 'body') : [];

  function body(): CreateBroadcastRequest {
    const [name = '', language = ''] = fields.template.split('|');
    const sendAt = fields.sendLater ? instantInZone(fields.sendAt, zone) : undefined;
    return {
      name: fields.name,
      channel_id: fields.channelId,
      template: { name, language, variables: template ? bodySlots.map((_, i) => fields.variables[i] ?? '') : fields.variables },
      audience: audienceOf(fields),
      // A time that cannot be read is sent as typed, for the API to name the field.
      send_at: fields.sendLater ? (sendAt?.toISOString() ?? fields.sendAt) : null,
      per_minute: fields.perMinute.trim() === '' ? null : Number(fields.perMinute),
      require_consent: fields.requireConsent,
    };
  }

  /** Saves the draft (made on the first save), then goes to step `then` when given. */
  const save = useMutation({
    mutationFn: async (_: { then?: StepId }) => {
      const sent = body();
      const row = saved ? await broadcastsApi.update(saved.id, sent) : await broadcastsApi.create(sent);
      return { row, audienceKey: JSON.stringify(sent.audience) };
    },
    onSuccess: ({ row, audienceKey }, { then }) => {
      queryClient.setQueryData(orgKey('broadcasts', row.id), row);
      void queryClient.invalidateQueries({ queryKey: orgKey('broadcasts', 'list') });
      setSaved(row);
      setSavedAudienceKey(audienceKey);
      // The draft has an address of its own from its first save on.
      if (!saved) navigate(`/broadcasts/${row.id}/edit?step=${then ?? step}`, { replace: true });
      else if (then) goTo(then);
    },
    onError: (error) => {
      // The field the API named may be on another step: go there.
      const pointer = error instanceof ApiError ? error.fieldErrors[0]?.pointer : undefined;
      const target = pointer ? stepOfPointer(pointer) : undefined;
      if (target && target !== step) goTo(target);
    },
  });
  const schedule = useMutation({
    mutationFn: async () => {
      const { row } = await save.mutateAsync({});
      return broadcastsApi.act(row.id, 'schedule');
    },
    onSuccess: (row) => {
      queryClient.setQueryData(orgKey('broadcasts', row.id), row);
      void queryClient.invalidateQueries({ queryKey: orgKey('broadcasts') });
      navigate(`/broadcasts/${row.id}`);
    },
  });
  const errors = formErrors(schedule.error ?? save.error);

  // The audience's count: the draft saved as the audience changes (after a pause in typing), then counted.
  const audienceKey = JSON.stringify(audienceOf(fields));
  const audienceEmpty = audienceKey === '{}';
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    if (step !== 'audience' || audienceEmpty || audienceKey === savedAudienceKey) return;
    const timer = setTimeout(() => {
      if (!saveRef.current.isPending) saveRef.current.mutate({});
    }, 600);
    return () => clearTimeout(timer);
  }, [step, audienceKey, savedAudienceKey, audienceEmpty]);

  function validateStep(): string | undefined {
    if (step === 'channel') {
      if (fields.name.trim() === '') return 'Give the broadcast a name.';
      if (fields.channelId === '') return 'Choose a channel.';
    }
    if (step === 'template') {
      if (!template) return 'Choose an approved template.';
      if (bodySlots.some((_, i) => (fields.variables[i] ?? '').trim() === '')) return 'Fill in every variable.';
    }
    if (step === 'audience' && audienceEmpty) return 'Choose who receives it: a segment, a list, tags or numbers.';
    if (step === 'schedule' && fields.sendLater && !instantInZone(fields.sendAt, zone)) return 'Choose the date and time to send it.';
    return undefined;
  }

  function next() {
    const problem = validateStep();
    setLocalError(problem);
    if (problem) return;
    const then = STEPS[stepIndex + 1]!.id;
    // From the audience on, each step is saved on the server before the next (it checks the fields).
    if (stepIndex >= 2) save.mutate({ then });
    else goTo(then);
  }

  const title = existing ? `Edit ${existing.name}` : 'New broadcast';
  return (
    <div className="broadcast-form-page">
      <PageHeader title={title} description="Send one approved template to many contacts, at a time and a pace you choose.">
        <Link className="button" to={saved ? `/broadcasts/${saved.id}` : '/broadcasts'}>
          {saved ? 'Back to the broadcast' : 'Back to broadcasts'}
        </Link>
      </PageHeader>
      <nav aria-label="Steps">
        <ol className="steps">
          {STEPS.map((s, i) => (
            <li key={s.id} aria-current={s.id === step ? 'step' : undefined} className={s.id === step ? 'step step-current' : 'step'}>
              {i < stepIndex || (saved && i <= 2) ? (
                <button type="button" className="link-button" onClick={() => goTo(s.id)}>
                  {i + 1}. {s.label}
                </button>
              ) : (
                <span>
                  {i + 1}. {s.label}
                </span>
              )}
            </li>
          ))}
        </ol>
      </nav>
      <form
        className="card broadcast-form"
        aria-label={`${STEPS[stepIndex]!.label} step`}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (step === 'review') schedule.mutate();
          else next();
        }}
      >
        <ErrorMessage message={localError} />
        {step === 'channel' ? (
          <ChannelStep fields={fields} set={set} errors={errors} channels={channels} />
        ) : step === 'template' ? (
          <TemplateStep fields={fields} set={set} errors={errors} templates={templates} template={template} />
        ) : step === 'audience' ? (
          <AudienceStep
            fields={fields}
            set={set}
            errors={errors}
            saved={saved}
            saving={save.isPending}
            stale={audienceKey !== savedAudienceKey}
          />
        ) : step === 'schedule' ? (
          <ScheduleStep fields={fields} set={set} errors={errors} zone={zone} />
        ) : step === 'pacing' ? (
          <PacingStep fields={fields} set={set} errors={errors} />
        ) : (
          <Review
            fields={fields}
            template={template}
            zone={zone}
            channelName={channels.all?.find((c) => c.id === fields.channelId)?.name}
          />
        )}
        <ErrorMessage message={errors.summary(...STEP_FIELDS[step])} />
        <div className="form-actions">
          {stepIndex > 0 ? (
            <button type="button" className="button" onClick={() => goTo(STEPS[stepIndex - 1]!.id)}>
              Back
            </button>
          ) : null}
          {step === 'review' ? (
            <>
              <button
                type="button"
                className="button"
                disabled={save.isPending || schedule.isPending}
                onClick={() => save.mutate({}, { onSuccess: ({ row }) => navigate(`/broadcasts/${row.id}`) })}
              >
                {save.isPending && !schedule.isPending ? 'Saving…' : 'Save draft'}
              </button>
              <button type="submit" className="button button-primary" disabled={save.isPending || schedule.isPending}>
                {schedule.isPending ? 'Scheduling…' : fields.sendLater ? 'Schedule' : 'Schedule and send now'}
              </button>
            </>
          ) : (
            <button type="submit" className="button button-primary" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : 'Next'}
            </button>
          )}
        </div>
      </form>
    </div>
  );
}

type StepProps = { fields: Fields; set: <K extends keyof Fields>(key: K, value: Fields[K]) => void; errors: FormErrors };

function Step({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="field-group broadcast-step">
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

function ChannelStep({ fields, set, errors, channels }: StepProps & { channels: ReturnType<typeof useTemplateChannels> }) {
  const list = channels.channels;
  return (
    <Step title="Channel">
      <TextField
        label="Broadcast name"
        value={fields.name}
        onChange={(v) => set('name', v)}
        maxLength={200}
        required
        description="For you and your team; recipients do not see it."
        error={errors.field('/name')}
      />
      {channels.error ? <ErrorMessage message={errorMessage(channels.error)} /> : null}
      {!list ? (
        <Loading label="Loading channels…" />
      ) : (
        <SelectField
          label="Channel"
          value={fields.channelId}
          onChange={(v) => {
            set('channelId', v);
            set('template', '');
            set('variables', []);
          }}
          options={[
            { value: '', label: list.length ? 'Choose a channel' : 'No channel with templates' },
            ...list.map((c) => ({ value: c.id, label: `${c.name} (${c.status})` })),
          ]}
          description="A channel with approved templates; it must be connected when the broadcast is scheduled."
          error={errors.field('/channel_id')}
        />
      )}
    </Step>
  );
}

function TemplateStep({
  fields,
  set,
  errors,
  templates,
  template,
}: StepProps & { templates: { data?: TemplateRecord[]; error: unknown }; template: TemplateRecord | undefined }) {
  const canReadContacts = useCan('contacts:read');
  const samples = useQuery({
    queryKey: orgKey('contacts', 'broadcast-samples'),
    queryFn: () => contactsApi.list({}).then((p) => p.data.slice(0, 20)),
    enabled: canReadContacts,
  });
  const [sampleId, setSampleId] = useState<string | undefined>(undefined);
  const sample = sampleId === '' ? undefined : (samples.data?.find((c) => c.id === sampleId) ?? samples.data?.[0]);
  const slots = template ? templateSlots(template.components).filter((s) => s.component === 'body') : [];
  const unsupported = template ? templateSlots(template.components).some((s) => s.component !== 'body') : false;
  return (
    <Step title="Template">
      {templates.error ? <ErrorMessage message={errorMessage(templates.error)} /> : null}
      <SelectField
        label="Template"
        value={fields.template}
        onChange={(v) => {
          set('template', v);
          set('variables', []);
        }}
        options={[
          { value: '', label: templates.data?.length === 0 ? 'No approved template on this channel' : 'Choose a template' },
          ...(templates.data ?? []).map((t) => ({ value: `${t.name}|${t.language}`, label: `${t.name} (${t.language})` })),
        ]}
        description="Only approved templates can be broadcast."
        error={errors.field('/template/name') ?? errors.field('/template/language')}
      />
      {unsupported ? (
        <p className="alert alert-info">
          This template has header or button variables, which broadcasts do not fill yet: the API will refuse it.
        </p>
      ) : null}
      {slots.map((slot, i) => (
        <TextField
          key={i}
          label={`Variable {{${slot.number}}}`}
          value={fields.variables[i] ?? ''}
          onChange={(v) =>
            set(
              'variables',
              slots.map((_, j) => (j === i ? v : (fields.variables[j] ?? ''))),
            )
          }
          placeholder="{{contact.name|there}}"
          maxLength={1024}
          description="Text, with contact fields as {{contact.name|default}}, {{contact.email|…}}, {{contact.custom.key|…}} or {{contact.phone}}."
          error={errors.field(`/template/variables/${i}`) ?? (i === 0 ? errors.field('/template/variables') : undefined)}
        />
      ))}
      {template ? (
        <>
          {canReadContacts ? (
            <SelectField
              label="Preview for"
              value={sampleId ?? sample?.id ?? ''}
              onChange={setSampleId}
              options={[
                ...(samples.data ?? []).map((c) => ({ value: c.id, label: c.name ?? c.phone_number ?? c.email ?? c.id })),
                { value: '', label: 'A contact with no details (every default)' },
              ]}
            />
          ) : null}
          <figure className="broadcast-preview">
            <figcaption className="small muted">
              Preview for {sample ? (sample.name ?? sample.phone_number ?? 'this contact') : 'a contact with no details'}
            </figcaption>
            <p className="template-preview" aria-live="polite" data-testid="broadcast-preview">
              {previewBody(templateBody(template.components), fields.variables, sample)}
            </p>
          </figure>
        </>
      ) : null}
    </Step>
  );
}

function AudienceStep({
  fields,
  set,
  errors,
  saved,
  saving,
  stale,
}: StepProps & { saved: BroadcastRecord | undefined; saving: boolean; stale: boolean }) {
  const canReadCrm = useCan('crm:read');
  const segments = useQuery({ queryKey: orgKey('crm', 'segments', 'all'), queryFn: () => allPages(segmentsApi.list), enabled: canReadCrm });
  const lists = useQuery({ queryKey: orgKey('crm', 'lists', 'all'), queryFn: () => allPages(listsApi.list), enabled: canReadCrm });
  return (
    <Step title="Audience">
      <p className="small muted">Everyone any of these name, once per number. It is frozen when sending starts.</p>
      <div className="form-grid">
        {canReadCrm ? (
          <>
            <SelectField
              label="Segment"
              value={fields.segmentId}
              onChange={(v) => set('segmentId', v)}
              options={[{ value: '', label: 'No segment' }, ...(segments.data ?? []).map((s) => ({ value: s.id, label: s.name }))]}
              error={errors.field('/audience/segment_id')}
            />
            <SelectField
              label="List"
              value={fields.listId}
              onChange={(v) => set('listId', v)}
              options={[
                { value: '', label: 'No list' },
                ...(lists.data ?? []).filter((l) => l.kind === 'contact').map((l) => ({ value: l.id, label: l.name })),
              ]}
              error={errors.field('/audience/list_id')}
            />
          </>
        ) : null}
        <TextField
          label="Tags"
          value={fields.tags}
          onChange={(v) => set('tags', v)}
          placeholder="vip, newsletter"
          description="Contacts with any of these tags, separated by commas."
          error={errors.field('/audience/tags')}
        />
      </div>
      <TextField
        label="Numbers"
        value={fields.phones}
        onChange={(v) => set('phones', v)}
        multiline
        rows={4}
        placeholder={'+4930111111\n+4930222222'}
        description="Pasted numbers in international form, one a line (or separated by commas)."
        error={errors.field('/audience/phones') ?? errors.field('/audience')}
      />
      <AudienceCount saved={saved} busy={saving || stale} empty={audienceOf(fields)} />
    </Step>
  );
}

function AudienceCount({ saved, busy, empty }: { saved: BroadcastRecord | undefined; busy: boolean; empty: BroadcastAudience }) {
  const count = useQuery({
    queryKey: orgKey('broadcasts', saved?.id, 'audience-count', saved?.updated_at),
    queryFn: () => broadcastsApi.audienceCount(saved!.id),
    enabled: saved !== undefined,
  });
  const skipped = count.data ? Object.entries(count.data.skipped).filter(([, n]) => n > 0) : [];
  let text: string;
  if (Object.keys(empty).length === 0) text = 'Choose who receives it to see how many that is.';
  else if (busy || count.isFetching || !count.data) text = 'Counting…';
  else text = `${count.data.sendable.toLocaleString()} of ${count.data.total.toLocaleString()} recipients would be sent to.`;
  return (
    <section className="audience-count" aria-labelledby="audience-count-title">
      <h2 id="audience-count-title">Audience now</h2>
      <p role="status" className="strong">
        {text}
      </p>
      {count.error ? <ErrorMessage message={errorMessage(count.error)} /> : null}
      {!busy && skipped.length > 0 ? (
        <ul className="small">
          {skipped.map(([reason, n]) => (
            <li key={reason}>
              {skipReasonLabel(reason)}: {n.toLocaleString()} skipped
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function ScheduleStep({ fields, set, errors, zone }: StepProps & { zone: string }) {
  return (
    <Step title="Schedule">
      <fieldset className="field-group">
        <legend>When to send</legend>
        <div className="check-grid">
          <label className="check-option">
            <input type="radio" name="send-when" checked={!fields.sendLater} onChange={() => set('sendLater', false)} />
            <span>As soon as it is scheduled</span>
          </label>
          <label className="check-option">
            <input type="radio" name="send-when" checked={fields.sendLater} onChange={() => set('sendLater', true)} />
            <span>At a time</span>
          </label>
        </div>
      </fieldset>
      {fields.sendLater ? (
        <TextField
          label="Send at"
          type="datetime-local"
          value={fields.sendAt}
          onChange={(v) => set('sendAt', v)}
          description={`In the organization's time zone, ${zone}.`}
          error={errors.field('/send_at')}
        />
      ) : null}
    </Step>
  );
}

function PacingStep({ fields, set, errors }: StepProps) {
  return (
    <Step title="Pacing">
      <TextField
        label="Messages per minute"
        type="number"
        value={fields.perMinute}
        onChange={(v) => set('perMinute', v)}
        placeholder="No cap of its own"
        description="At most this many recipients a minute; empty: only the channel's own pace applies."
        error={errors.field('/per_minute')}
      />
      <CheckboxField
        label="Only contacts with a marketing consent"
        checked={fields.requireConsent}
        onChange={(v) => set('requireConsent', v)}
        description="The others are skipped as “no marketing consent”."
      />
    </Step>
  );
}

function Review({
  fields,
  template,
  zone,
  channelName,
}: {
  fields: Fields;
  template: TemplateRecord | undefined;
  zone: string;
  channelName: string | undefined;
}) {
  const audience = audienceOf(fields);
  const sendAt = fields.sendLater ? instantInZone(fields.sendAt, zone) : undefined;
  return (
    <Step title="Review">
      <dl className="details">
        <Pair term="Name">{fields.name}</Pair>
        <Pair term="Channel">{channelName ?? fields.channelId}</Pair>
        <Pair term="Template">{template ? `${template.name} (${template.language})` : fields.template.replace('|', ' ')}</Pair>
        <Pair term="Audience">{describeAudience(audience)}</Pair>
        <Pair term="Send">
          {sendAt ? `${formatDate(sendAt.toISOString())} (${zone}: ${fields.sendAt.replace('T', ' ')})` : 'As soon as it is scheduled'}
        </Pair>
        <Pair term="Pace">{fields.perMinute ? `${fields.perMinute} a minute` : "The channel's own"}</Pair>
        <Pair term="Marketing consent">{fields.requireConsent ? 'Required' : 'Not required'}</Pair>
      </dl>
    </Step>
  );
}

function Pair({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="details-pair">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The audience in words ("segment, 2 tags, 3 numbers"). */
export function describeAudience(a: BroadcastAudience): string {
  const parts = [
    a.segment_id ? 'a segment' : '',
    a.list_id ? 'a list' : '',
    a.tags?.length ? `tags ${a.tags.join(', ')}` : '',
    a.contact_ids?.length ? `${a.contact_ids.length.toLocaleString()} contacts` : '',
    a.phones?.length ? `${a.phones.length.toLocaleString()} ${a.phones.length === 1 ? 'number' : 'numbers'}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'nobody yet';
}
