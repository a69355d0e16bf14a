/** The contact's timeline: messages, comments, tasks, deal stage changes, consents and suppressions, newest first, by kind. */
import { useState } from 'react';
import { formatDate } from '../../../format.ts';
import { SelectField } from '../../../forms.tsx';
import { orgKey, usePagedList } from '../../../query.ts';
import { Link } from '../../../router.tsx';
import { ListState, Pager } from '../../../ui.tsx';
import { contactsApi, type TimelineItemRecord } from '../api.ts';

const KINDS = [
  { value: '', label: 'Everything' },
  { value: 'message', label: 'Messages' },
  { value: 'comment', label: 'Notes and comments' },
  { value: 'task', label: 'Tasks' },
  { value: 'deal_stage', label: 'Deals' },
  { value: 'consent,suppression', label: 'Consents and suppressions' },
];

/** What an item says, in a line. */
export function describeItem(item: TimelineItemRecord): { title: string; detail?: string; link?: string } {
  switch (item.kind) {
    case 'message':
      return {
        title: item.action === 'received' ? 'Message received' : 'Message sent',
        detail: item.message!.deleted ? 'Deleted by its sender' : item.message!.preview,
        link: `/inbox/${item.message!.conversation_id}`,
      };
    case 'comment':
      return { title: 'Note added', detail: item.comment!.body + (item.comment!.truncated ? '…' : '') };
    case 'task':
      return { title: item.action === 'completed' ? 'Task completed' : 'Task created', detail: item.task!.title };
    case 'deal_stage': {
      const d = item.deal_stage!;
      return {
        title: d.from_stage ? `${d.deal_name}: ${d.from_stage.name} → ${d.to_stage.name}` : `${d.deal_name}: created in ${d.to_stage.name}`,
      };
    }
    case 'consent':
      return { title: item.action === 'granted' ? 'Consent granted' : 'Consent revoked', detail: `Scope: ${item.consent!.channel}` };
    case 'suppression':
      return { title: 'Suppressed', detail: `${item.suppression!.reason} (scope: ${item.suppression!.channel})` };
    default:
      return { title: item.kind satisfies never };
  }
}

export function TimelineSection({ contactId }: { contactId: string }) {
  const [kind, setKind] = useState('');
  const timeline = usePagedList(orgKey('contacts', contactId, 'timeline', kind), (cursor) => contactsApi.timeline(contactId, kind, cursor));
  return (
    <section className="section card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <SelectField label="Show" value={kind} onChange={setKind} options={KINDS} />
      <ListState items={timeline.items} error={timeline.error} empty={<p className="muted">Nothing here yet.</p>}>
        {(items) => (
          <ol className="timeline-list" aria-label="Timeline">
            {items.map((item) => {
              const { title, detail, link } = describeItem(item);
              return (
                <li key={`${item.kind}:${item.action}:${item.id}`} className="timeline-item">
                  <div className="timeline-title">
                    <span className="strong">{link ? <Link to={link}>{title}</Link> : title}</span>
                    <span className="small muted">{formatDate(item.at)}</span>
                  </div>
                  {detail ? <p className="timeline-detail">{detail}</p> : null}
                </li>
              );
            })}
          </ol>
        )}
      </ListState>
      <Pager list={timeline} />
    </section>
  );
}
