/**
 * An approved template of a channel, picked and filled in: the choice (useTemplateChoice) and its fields
 * (TemplateFields: the template, its body as a preview, one field per variable, the API's errors beside
 * each). The reply box of a thread and the New message form both send with it.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { SelectField, TextField, type FormErrors } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { ErrorMessage } from '../../ui.tsx';
import { inboxApi, type SendMessageRequest } from './api.ts';
import { templateBody, templateComponents, templateSlots } from './template-variables.ts';

export type TemplateChoice = ReturnType<typeof useTemplateChoice>;

/** The channel's approved templates (loaded while `enabled`), the one chosen, and the values of its variables. */
export function useTemplateChoice(channelId: string, enabled: boolean) {
  const templates = useQuery({
    queryKey: orgKey('templates', 'approved', channelId),
    queryFn: () => inboxApi.approvedTemplates(channelId),
    enabled: enabled && channelId !== '',
  });
  const [templateId, setTemplateId] = useState('');
  const [values, setValues] = useState<string[]>([]);
  const template = templates.data?.find((t) => t.id === templateId);
  const slots = template ? templateSlots(template.components) : [];
  const built = templateComponents(slots, values);

  /** The message's type and content: the template with its variables (empty name and language until one is chosen, for the API to name). */
  function content(): Pick<SendMessageRequest, 'type' | 'content'> {
    if (!template) return { type: 'template', content: { template: { name: '', language: { code: '' } } } };
    return {
      type: 'template',
      content: {
        template: {
          name: template.name,
          language: { code: template.language },
          ...(built.components.length ? { components: built.components } : {}),
        },
      },
    };
  }

  return {
    templates,
    template,
    slots,
    built,
    values,
    templateId,
    content,
    choose(id: string) {
      setTemplateId(id);
      setValues([]);
    },
    setValue(index: number, value: string) {
      setValues((prev) => Object.assign([...prev], { [index]: value }));
    },
    reset() {
      setTemplateId('');
      setValues([]);
    },
  };
}

export function TemplateFields({ choice, errors, onChange }: { choice: TemplateChoice; errors: FormErrors; onChange?: () => void }) {
  const { templates, template, slots, built } = choice;
  return (
    <div className="composer-template">
      {templates.error ? <ErrorMessage message="The templates could not be loaded." /> : null}
      <SelectField
        label="Template"
        value={choice.templateId}
        onChange={(v) => {
          choice.choose(v);
          onChange?.();
        }}
        error={errors.field('/content/template/name') ?? errors.field('/content/template/language')}
        description={
          templates.data && templates.data.length === 0 ? 'This channel has no approved template yet (Templates page).' : undefined
        }
        options={[
          { value: '', label: templates.isLoading ? 'Loading templates…' : 'Choose an approved template' },
          ...(templates.data ?? []).map((t) => ({ value: t.id, label: `${t.name} (${t.language})` })),
        ]}
      />
      {template ? <p className="composer-template-text small">{templateBody(template.components)}</p> : null}
      {slots.map((slot, i) => (
        <TextField
          key={`${template?.id}-${i}`}
          label={`${slot.component === 'button' ? `Button ${(slot.index ?? 0) + 1}` : slot.component === 'header' ? 'Header' : 'Body'} variable {{${slot.number}}}`}
          value={choice.values[i] ?? ''}
          onChange={(v) => choice.setValue(i, v)}
          error={errors.field(built.pointers[i]!)}
        />
      ))}
    </div>
  );
}
