/** Bots (docs/bots.md): the list, and a new bot with its trigger; its signing secret shown once. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { useCan } from '../../session.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, SecretBox, StatusBadge } from '../../ui.tsx';
import { botsApi, type BotRecord } from './api.ts';

const botsKey = () => orgKey('bots');

const TRIGGERS = [
  { value: 'all', label: 'Every customer message' },
  { value: 'equals', label: 'A message equal to a keyword' },
  { value: 'contains', label: 'A message containing a keyword' },
  { value: 'starts_with', label: 'A message starting with a keyword' },
  { value: 'regex', label: 'A message matching a pattern' },
];

export function BotsPage() {
  const bots = useQuery({ queryKey: botsKey(), queryFn: botsApi.list });
  const canWrite = useCan('bots:write');
  const [created, setCreated] = useState<{ name: string; secret: string } | undefined>(undefined);
  return (
    <>
      <PageHeader
        title="Bots"
        description="A bot answers conversations from your own server: Parley posts it the customer's messages, signed like webhooks, and it replies through the API. When a member replies or a conversation is assigned, the bot stops there."
      />
      {created ? (
        <SecretBox
          title={`Bot added: ${created.name}`}
          label="Signing secret"
          secret={created.secret}
          warning="Your bot checks each delivery's signature with this secret. It is shown only now: copy it before you close this."
          onDone={() => setCreated(undefined)}
        />
      ) : null}
      <section className="section" aria-labelledby="bots-title">
        <h2 id="bots-title">Your bots</h2>
        <ListState
          items={bots.data}
          error={bots.error}
          empty={<EmptyState title="No bots yet">Add the address of your bot below.</EmptyState>}
        >
          {(list) => <BotTable bots={list} canWrite={canWrite} />}
        </ListState>
      </section>
      {canWrite ? <NewBotForm onCreated={setCreated} /> : <p className="muted">Only owners and admins add and change bots.</p>}
    </>
  );
}

function triggerText(bot: BotRecord): string {
  if (bot.trigger.type === 'all') return 'Every message';
  return `${(bot.trigger.operator ?? 'equals').replace('_', ' ')}: ${(bot.trigger.keywords ?? []).join(', ')}`;
}

function BotTable({ bots, canWrite }: { bots: BotRecord[]; canWrite: boolean }) {
  const client = useQueryClient();
  const toggle = useMutation({
    mutationFn: (bot: BotRecord) => botsApi.update(bot.id, { enabled: !bot.enabled }),
    onSuccess: () => client.invalidateQueries({ queryKey: botsKey() }),
  });
  return (
    <div className="table-wrap">
      <ErrorMessage message={toggle.error ? formErrors(toggle.error).message : undefined} />
      <table>
        <thead>
          <tr>
            <th scope="col">Bot</th>
            <th scope="col">Trigger</th>
            <th scope="col">State</th>
            {canWrite ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {bots.map((bot) => (
            <tr key={bot.id}>
              <td>
                <span className="strong">{bot.name}</span>
                <div className="small muted break-all">{bot.url}</div>
              </td>
              <td className="small">{triggerText(bot)}</td>
              <td>
                <StatusBadge status={bot.enabled ? 'enabled' : 'disabled'} />
              </td>
              {canWrite ? (
                <td>
                  <button type="button" className="button" disabled={toggle.isPending} onClick={() => toggle.mutate(bot)}>
                    {bot.enabled ? `Disable ${bot.name}` : `Enable ${bot.name}`}
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NewBotForm({ onCreated }: { onCreated(created: { name: string; secret: string }): void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [trigger, setTrigger] = useState('all');
  const [keywords, setKeywords] = useState('');
  const [expire, setExpire] = useState('30');
  const create = useMutation({
    mutationFn: botsApi.create,
    onSuccess: async (bot) => {
      setName('');
      setUrl('');
      setKeywords('');
      onCreated({ name: bot.name, secret: bot.secret });
      await client.invalidateQueries({ queryKey: botsKey() });
      window.scrollTo({ top: 0 });
    },
  });
  const errors = formErrors(create.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const words = keywords
      .split(/[\n,]/)
      .map((k) => k.trim())
      .filter(Boolean);
    create.mutate({
      name: name.trim(),
      url: url.trim(),
      trigger:
        trigger === 'all'
          ? { type: 'all' }
          : { type: 'keyword', operator: trigger as 'equals' | 'contains' | 'starts_with' | 'regex', keywords: words },
      expire_minutes: Number(expire) || 0,
    });
  }

  return (
    <section className="section card" aria-labelledby="new-bot-title">
      <h2 id="new-bot-title">Add a bot</h2>
      <form onSubmit={submit} noValidate>
        <ErrorMessage message={errors.message} />
        <TextField label="Name" value={name} onChange={setName} maxLength={100} error={errors.field('/name')} required />
        <TextField
          label="URL"
          type="url"
          value={url}
          onChange={setUrl}
          placeholder="https://example.com/parley-bot"
          error={errors.field('/url')}
          required
        />
        <SelectField label="Starts on" value={trigger} onChange={setTrigger} options={TRIGGERS} error={errors.field('/trigger/type')} />
        {trigger === 'all' ? null : (
          <TextField
            label="Keywords"
            value={keywords}
            onChange={setKeywords}
            description="One or more, separated by commas or lines."
            error={errors.field('/trigger/keywords') ?? errors.field('/trigger/keywords/0')}
          />
        )}
        <TextField
          label="Ends after minutes of silence"
          type="number"
          value={expire}
          onChange={setExpire}
          description="0: the session never expires."
          error={errors.field('/expire_minutes')}
        />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add bot'}
        </button>
      </form>
    </section>
  );
}
