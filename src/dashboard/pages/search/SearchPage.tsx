/**
 * The search results: GET /v1/search for the words in the address (?q=, and ?kinds=), best match
 * first, by cursor. Each result links to its record's page (a message: its conversation in the inbox).
 */
import { useState, type FormEvent } from 'react';
import { formatDate } from '../../format.ts';
import { SelectField, TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { Link, useSearchParams } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { EmptyState, ListState, PageHeader, Pager } from '../../ui.tsx';
import { searchApi, type SearchHitRecord } from './api.ts';

const KINDS = [
  { kind: 'contact', label: 'Contacts', permission: 'contacts:read' },
  { kind: 'company', label: 'Companies', permission: 'crm:read' },
  { kind: 'deal', label: 'Deals', permission: 'crm:read' },
  { kind: 'message', label: 'Messages', permission: 'messages:read' },
] as const;

const KIND_LABEL: Record<string, string> = { contact: 'Contact', company: 'Company', deal: 'Deal', message: 'Message' };

/** Where a result leads: its record's page, a message's conversation. */
export function hitLink(hit: SearchHitRecord): string | undefined {
  switch (hit.kind) {
    case 'contact':
      return `/contacts/${hit.id}`;
    case 'company':
      return `/companies/${hit.id}`;
    case 'deal':
      return `/deals/${hit.id}`;
    case 'message':
      return hit.conversation_id ? `/inbox/${hit.conversation_id}` : undefined;
    default:
      return undefined;
  }
}

export function SearchPage() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const kinds = params.get('kinds') ?? '';
  const list = usePagedList(orgKey('search', { q, kinds }), (cursor) => searchApi.search(q, kinds, cursor), { enabled: q.trim() !== '' });

  function apply(next: { q: string; kinds: string }) {
    const out = new URLSearchParams();
    if (next.q.trim()) out.set('q', next.q.trim());
    if (next.kinds) out.set('kinds', next.kinds);
    setParams(out);
  }

  return (
    <div className="search-area">
      <PageHeader title="Search" description="Contacts, companies, deals and the words of messages, best match first." />
      <SearchForm key={`${q}\u0000${kinds}`} q={q} kinds={kinds} onApply={apply} />
      {q.trim() === '' ? (
        <EmptyState title="Type what you are looking for">
          A name, an email, a number or words from a message. Each word finds the words it begins.
        </EmptyState>
      ) : (
        <ListState items={list.items} error={list.error} empty={<EmptyState title="Nothing found">Try fewer or other words.</EmptyState>}>
          {(items) => (
            <ol className="search-results" aria-label="Search results">
              {items.map((hit) => (
                <SearchResult key={`${hit.kind}:${hit.id}`} hit={hit} />
              ))}
            </ol>
          )}
        </ListState>
      )}
      {q.trim() !== '' ? <Pager list={list} /> : null}
    </div>
  );
}

function SearchResult({ hit }: { hit: SearchHitRecord }) {
  const to = hitLink(hit);
  const title = hit.title || '(no name)';
  return (
    <li className="search-result" data-kind={hit.kind} data-id={hit.id}>
      <span className={`chip search-kind search-kind-${hit.kind}`}>{KIND_LABEL[hit.kind] ?? hit.kind}</span>
      <span className="search-title strong">{to ? <Link to={to}>{title}</Link> : title}</span>
      {hit.snippet && hit.snippet !== hit.title ? <p className="search-snippet muted">{hit.snippet}</p> : null}
      <span className="search-date muted">{formatDate(hit.created_at)}</span>
    </li>
  );
}

function SearchForm({ q, kinds, onApply }: { q: string; kinds: string; onApply(next: { q: string; kinds: string }): void }) {
  const [draft, setDraft] = useState(q);
  const [kind, setKind] = useState(kinds);
  const { permissions } = useSession();
  const offered = KINDS.filter((k) => permissions.includes(k.permission));
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply({ q: draft, kinds: kind });
  }
  return (
    <form className="filter-bar" role="search" aria-label="Search everything" onSubmit={submit}>
      <TextField
        label="Words"
        type="search"
        value={draft}
        onChange={setDraft}
        placeholder="e.g. ana lima, +49 151, parcel"
        maxLength={200}
      />
      <SelectField
        label="Kind"
        value={kind}
        onChange={setKind}
        options={[{ value: '', label: 'Everything' }, ...offered.map((k) => ({ value: k.kind, label: k.label }))]}
      />
      <div className="filter-actions">
        <button type="submit" className="button button-primary">
          Search
        </button>
      </div>
    </form>
  );
}
