/** Who owns the conversation: when a bot does, a note naming it and a button that takes it over for the team. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { formErrors } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { useCan } from '../../session.tsx';
import { ErrorMessage } from '../../ui.tsx';
import { botsApi } from '../settings/api.ts';
import type { Conversation } from './api.ts';

export function BotOwner({ conversation }: { conversation: Conversation }) {
  const queryClient = useQueryClient();
  const canSend = useCan('messages:send');
  const canReadBots = useCan('bots:read');
  const bots = useQuery({ queryKey: orgKey('bots'), queryFn: botsApi.list, enabled: canReadBots && conversation.bot_id !== null });
  const takeOver = useMutation({
    mutationFn: () => botsApi.takeOver(conversation.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: orgKey('conversations') }),
  });
  if (conversation.bot_id === null) return null;
  const name = bots.data?.find((b) => b.id === conversation.bot_id)?.name;
  return (
    <div className="bot-owner" role="status">
      <p className="small">
        <span className="strong">{name ? `The bot ${name}` : 'A bot'}</span> is answering this conversation. Replying or assigning it to a
        member takes it over too.
      </p>
      {canSend ? (
        <button type="button" className="button" disabled={takeOver.isPending} onClick={() => takeOver.mutate()}>
          {takeOver.isPending ? 'Taking over…' : 'Take over'}
        </button>
      ) : null}
      <ErrorMessage message={takeOver.error ? formErrors(takeOver.error).message : undefined} />
    </div>
  );
}
