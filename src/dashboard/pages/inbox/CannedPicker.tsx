/**
 * Canned responses in the composer: typing `/` and the beginning of a shortcut lists the matching
 * responses (the shared ones and your own); choosing one puts its text, filled for this conversation's
 * contact and for you (POST /v1/canned-responses/{id}/render), in the message box.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import type { CannedResponseRecord } from '../../../http/v1/canned-responses.presenters.ts';
import { call, errorMessage, type Page } from '../../api.ts';
import { orgKey } from '../../query.ts';

const cannedApi = {
  find: (q: string) => call<Page<CannedResponseRecord>>('GET', '/v1/canned-responses', { query: { q, limit: '8' } }).then((r) => r.data),
  render: (id: string, conversationId: string) =>
    call<{ data: { body: string; missing: string[] } }>('POST', `/v1/canned-responses/${encodeURIComponent(id)}/render`, {
      body: { conversation_id: conversationId },
    }).then((r) => r.data),
};

/** The shortcut being typed: the message is `/` and a word (nothing else yet), or undefined. */
export function typedShortcut(text: string): string | undefined {
  const match = /^\/([a-z0-9_-]{0,32})$/i.exec(text);
  return match ? match[1]!.toLowerCase() : undefined;
}

export function CannedPicker({ text, conversationId, onPick }: { text: string; conversationId: string; onPick(body: string): void }) {
  const shortcut = typedShortcut(text);
  const matches = useQuery({
    queryKey: orgKey('canned-responses', 'find', shortcut ?? ''),
    queryFn: () => cannedApi.find(shortcut ?? ''),
    enabled: shortcut !== undefined,
    staleTime: 30_000,
  });
  const render = useMutation({
    mutationFn: (id: string) => cannedApi.render(id, conversationId),
    onSuccess: (rendered) => onPick(rendered.body),
  });
  if (shortcut === undefined) return null;
  const items = matches.data ?? [];
  return (
    <div className="canned-picker">
      <p className="small muted" role="status">
        {matches.isPending
          ? 'Looking for canned responses…'
          : `${items.length} canned ${items.length === 1 ? 'response' : 'responses'} for /${shortcut}`}
      </p>
      {items.length > 0 ? (
        <ul className="canned-list" aria-label="Canned responses">
          {items.map((r) => (
            <li key={r.id}>
              <button type="button" className="button button-small" disabled={render.isPending} onClick={() => render.mutate(r.id)}>
                <span className="mono">/{r.shortcut}</span> {r.name}
                {r.shared ? null : <span className="muted"> (yours)</span>}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {render.error ? (
        <p className="field-error" role="alert">
          Could not fill the response: {errorMessage(render.error)}
        </p>
      ) : null}
    </div>
  );
}
