/** A channel's details: its platform and engine in words, its number, settings and stored credentials. */
import { formatDate } from '../../format.ts';
import { engineLabel, platformLabel, type ChannelView } from './api.ts';

export function ChannelDetails({ channel }: { channel: ChannelView }) {
  const settings = Object.entries(channel.settings);
  return (
    <section className="card" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      <dl className="details">
        <dt>Platform</dt>
        <dd>{platformLabel(channel.platform)}</dd>
        <dt>Engine</dt>
        <dd>{engineLabel(channel)}</dd>
        <dt>Phone number</dt>
        <dd className="mono">{channel.display_phone_number ?? '—'}</dd>
        {settings.map(([key, value]) => (
          <Row key={key} term={key} value={typeof value === 'string' ? value : JSON.stringify(value)} />
        ))}
        <dt>Credentials stored</dt>
        <dd>{channel.credentials_set.length ? channel.credentials_set.join(', ') : 'none'}</dd>
        <dt>Channel ID</dt>
        <dd className="mono break">{channel.id}</dd>
        <dt>Created</dt>
        <dd>{formatDate(channel.created_at)}</dd>
      </dl>
    </section>
  );
}

function Row({ term, value }: { term: string; value: string }) {
  return (
    <>
      <dt className="mono">{term}</dt>
      <dd className="mono break">{value}</dd>
    </>
  );
}
