/**
 * A new template: written here, stored as a draft and submitted for approval in one go. The API's
 * objections show next to their fields; the provider's decision then arrives live on the list.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { Link, useNavigate, useSearchParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { FormActions, NotAllowed } from './parts.tsx';
import { ErrorMessage, Loading, PageHeader } from '../../ui.tsx';
import { TEMPLATE_CATEGORY_OPTIONS, templatesApi, type CreateTemplateRequest } from './api.ts';
import { useTemplateChannels } from './template-channels.ts';

/** Which form field shows the API's message on each component (by its index in the list sent). */
type Part = 'HEADER' | 'BODY' | 'FOOTER';

export function NewTemplatePage() {
  const canWrite = useCan('templates:write');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const channels = useTemplateChannels();
  const [channelId, setChannelId] = useState<string | undefined>(params.get('channel') ?? undefined);
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en_US');
  const [category, setCategory] = useState<CreateTemplateRequest['category']>('UTILITY');
  const [text, setText] = useState<Record<Part, string>>({ HEADER: '', BODY: '', FOOTER: '' });
  const [order, setOrder] = useState<Part[]>([]);
  const [submitProblem, setSubmitProblem] = useState<string | undefined>(undefined);

  const options = channels.channels ?? [];
  const chosen = options.some((c) => c.id === channelId) ? channelId! : (options[0]?.id ?? '');

  const create = useMutation({
    /** Creates the draft, then submits it; a refused submission keeps the draft and says why. */
    mutationFn: async (input: CreateTemplateRequest): Promise<{ submitProblem?: string }> => {
      const created = await templatesApi.create(input);
      await queryClient.invalidateQueries({ queryKey: orgKey('templates') });
      try {
        await templatesApi.submit(created.id);
      } catch (err) {
        // The draft is kept: the list offers to submit it again.
        return { submitProblem: err instanceof Error ? err.message : 'the provider did not take it' };
      }
      return {};
    },
    onSuccess: async (result, input) => {
      if (result.submitProblem !== undefined) {
        setSubmitProblem(result.submitProblem);
        return;
      }
      await queryClient.invalidateQueries({ queryKey: orgKey('templates') });
      void navigate(`/templates?channel=${encodeURIComponent(input.channel_id)}`);
    },
  });
  const errors = formErrors(create.error);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitProblem(undefined);
    const parts = (['HEADER', 'BODY', 'FOOTER'] as const).filter((p) => p === 'BODY' || text[p].trim());
    setOrder(parts);
    const input: CreateTemplateRequest = {
      channel_id: chosen,
      name: name.trim(),
      language: language.trim(),
      category,
      components: parts.map((p) => (p === 'HEADER' ? { type: p, format: 'TEXT', text: text[p] } : { type: p, text: text[p] })),
    };
    create.mutate(input);
  }

  const componentError = (part: Part) => {
    const index = order.indexOf(part);
    return index < 0 ? undefined : errors.field(`/components/${index}`);
  };

  if (!canWrite) return <NotAllowed title="New template" message="Your role cannot create templates; ask an owner or admin." />;
  return (
    <>
      <PageHeader title="New template" description={<Link to="/templates">Back to templates</Link>} />
      {channels.channels === undefined ? (
        channels.error ? (
          <ErrorMessage message="The channels could not be loaded; reload the page." />
        ) : (
          <Loading />
        )
      ) : options.length === 0 ? (
        <div className="card">
          <p>
            Templates belong to channels whose provider approves them (official channels). <Link to="/channels/new">Add one first</Link>.
          </p>
        </div>
      ) : (
        <form className="card template-form" onSubmit={onSubmit} noValidate>
          <ErrorMessage message={errors.message} />
          {submitProblem ? (
            <div className="alert alert-error" role="alert">
              The draft was saved but not submitted: {submitProblem}. <Link to="/templates?status=draft">Submit it from the list</Link>.
            </div>
          ) : null}
          <SelectField
            label="Channel"
            value={chosen}
            onChange={setChannelId}
            options={options.map((c) => ({ value: c.id, label: c.name }))}
            error={errors.field('/channel_id')}
          />
          <TextField
            label="Name"
            value={name}
            onChange={setName}
            required
            maxLength={512}
            description="Lower-case letters, digits and underscores, e.g. order_shipped."
            error={errors.field('/name')}
          />
          <div className="form-row">
            <TextField
              label="Language"
              value={language}
              onChange={setLanguage}
              required
              maxLength={10}
              description="A locale code such as en or en_US."
              error={errors.field('/language')}
            />
            <SelectField
              label="Category"
              value={category}
              onChange={(v) => setCategory(v as CreateTemplateRequest['category'])}
              options={TEMPLATE_CATEGORY_OPTIONS.map((c) => ({ value: c, label: c.toLowerCase() }))}
              error={errors.field('/category')}
            />
          </div>
          <TextField
            label="Header (optional)"
            value={text.HEADER}
            onChange={(v) => setText((t) => ({ ...t, HEADER: v }))}
            maxLength={60}
            error={componentError('HEADER')}
          />
          <TextField
            label="Body"
            multiline
            rows={5}
            value={text.BODY}
            onChange={(v) => setText((t) => ({ ...t, BODY: v }))}
            required
            description="The message; {{1}}, {{2}}… are filled in when it is sent."
            error={componentError('BODY') ?? (order.length === 0 ? undefined : errors.field('/components'))}
          />
          <TextField
            label="Footer (optional)"
            value={text.FOOTER}
            onChange={(v) => setText((t) => ({ ...t, FOOTER: v }))}
            maxLength={60}
            error={componentError('FOOTER')}
          />
          <FormActions busy={create.isPending} label="Create and submit" busyLabel="Submitting…" cancelTo="/templates" />
        </form>
      )}
    </>
  );
}
