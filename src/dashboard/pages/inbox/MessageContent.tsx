/** One message's content, rendered by its type (text, media with a preview, location, replies, reactions, templates…). */
import type { ReactNode } from 'react';
import { currentOrganization } from '../../api.ts';
import type { Message } from './api.ts';

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Only web addresses become links or previews (never javascript: or data: from a message). */
function webUrl(v: unknown): string | undefined {
  const s = str(v);
  if (!s) return undefined;
  try {
    const url = new URL(s);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function Kind({ children }: { children: ReactNode }) {
  return <span className="msg-kind">{children}</span>;
}

/**
 * Media: its kind, a preview (a picture or sticker shown, a video or voice note playable, loaded only
 * when on screen and without a referrer), the file as a link that opens it in a new tab, and the caption.
 * Inbound media is shown from the copy Parley stored (same origin: the session cookie reaches it; the
 * element names the organization, since it cannot send X-Organization-Id), by the type sniffed from
 * its bytes; while it downloads, or when it could not be stored, that is said instead.
 */
function Media({ type, content, stored }: { type: string; content: Json; stored: Message['media'] }) {
  const caption = str(content.caption);
  if (stored) return <StoredMedia type={type} media={stored} caption={caption} name={str(content.file_name)} />;
  const url = webUrl(content.media_url ?? content.url ?? content.sticker_url);
  const name = str(content.file_name) ?? (url ? decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') : undefined);
  return (
    <>
      <Kind>{type}</Kind>
      {url && (type === 'image' || type === 'sticker') ? (
        <img className="msg-image" src={url} alt={caption ?? name ?? `${type} sent`} loading="lazy" referrerPolicy="no-referrer" />
      ) : null}
      {url && type === 'video' ? <video className="msg-video" src={url} controls preload="metadata" /> : null}
      {url && type === 'audio' ? <audio src={url} controls preload="none" /> : null}
      {url ? (
        <a href={url} target="_blank" rel="noreferrer noopener" className="msg-link msg-file">
          {name || url} <span className="visually-hidden">(opens in a new tab)</span>↗
        </a>
      ) : (
        <span className="msg-file muted">{str(content.mime_type) ?? 'media'} received</span>
      )}
      {caption ? <p className="msg-text">{caption}</p> : null}
    </>
  );
}

function StoredMedia({
  type,
  media,
  caption,
  name,
}: {
  type: string;
  media: NonNullable<Message['media']>;
  caption?: string;
  name?: string;
}) {
  const org = currentOrganization();
  const url = org ? `${media.url}?organization_id=${encodeURIComponent(org)}` : media.url;
  const kind = media.content_type ?? '';
  const label = name ?? media.file_name ?? `${type} received`;
  let body: ReactNode;
  if (media.status === 'pending') body = <span className="msg-file muted">{type} received, downloading…</span>;
  else if (media.status === 'failed')
    body = (
      <span className="msg-file muted">
        {type} received but not stored: {media.error?.title ?? 'unknown error'}
      </span>
    );
  else if (type !== 'document' && kind.startsWith('image/'))
    body = <img className="msg-image" src={url} alt={caption ?? label} loading="lazy" />;
  else if (type !== 'document' && kind.startsWith('video/')) body = <video className="msg-video" src={url} controls preload="metadata" />;
  else if (type !== 'document' && kind.startsWith('audio/')) body = <audio src={url} controls preload="none" />;
  else {
    body = (
      <a href={url} className="msg-link msg-file" download={media.file_name ?? undefined}>
        {label} ({formatBytes(media.size ?? 0)}) <span className="visually-hidden">(download)</span>↓
      </a>
    );
  }
  return (
    <>
      <Kind>{type}</Kind>
      {body}
      {caption ? <p className="msg-text">{caption}</p> : null}
    </>
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function Location({ content }: { content: Json }) {
  const lat = Number(content.latitude);
  const lon = Number(content.longitude);
  const known = Number.isFinite(lat) && Number.isFinite(lon);
  return (
    <>
      <Kind>location</Kind>
      <p className="msg-text">
        {str(content.name) ? <strong>{str(content.name)}</strong> : null}
        {str(content.name) && str(content.address) ? <br /> : null}
        {str(content.address) ?? null}
      </p>
      {known ? (
        <a
          className="msg-link"
          href={`https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=16/${lat}/${lon}`}
          target="_blank"
          rel="noreferrer noopener"
        >
          {lat.toFixed(5)}, {lon.toFixed(5)} on the map
        </a>
      ) : null}
    </>
  );
}

function Template({ content }: { content: Json }) {
  const template = obj(content.template);
  const language = str(obj(template.language).code) ?? str(template.language);
  const values = arr(template.components).flatMap((c) => arr(obj(c).parameters).map((p) => str(obj(p).text) ?? str(obj(p).payload) ?? ''));
  return (
    <>
      <Kind>template</Kind>
      <p className="msg-text">
        <strong>{str(template.name) ?? 'template'}</strong>
        {language ? <span className="muted"> ({language})</span> : null}
      </p>
      {values.length > 0 ? <p className="msg-text small">Values: {values.map((v) => `“${v}”`).join(', ')}</p> : null}
    </>
  );
}

function Choices({ content, type }: { content: Json; type: string }) {
  const buttons = arr(content.buttons).map((b) => str(obj(b).title) ?? str(obj(b).text) ?? '');
  const rows = arr(content.sections).flatMap((s) => arr(obj(s).rows).map((r) => str(obj(r).title) ?? ''));
  const options = arr(content.options).map((o) => (typeof o === 'string' ? o : (str(obj(o).name) ?? '')));
  const choices = [...buttons, ...rows, ...options].filter(Boolean);
  return (
    <>
      <Kind>{type}</Kind>
      {(str(content.body) ?? str(content.question)) ? <p className="msg-text">{str(content.body) ?? str(content.question)}</p> : null}
      {choices.length > 0 ? (
        <ul className="msg-choices" aria-label="Choices offered">
          {choices.map((c, i) => (
            <li key={i}>{c}</li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

/** The content of a message, as a person reads it. */
export function MessageContent({ message }: { message: Message }) {
  const content = obj(message.content);
  switch (message.type) {
    case 'text':
      return <p className="msg-text">{str(content.body) ?? str(obj(content.text).body) ?? str(content.text) ?? ''}</p>;
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker':
      return <Media type={message.type} content={content} stored={message.media} />;
    case 'location':
      return <Location content={content} />;
    case 'template':
      return <Template content={content} />;
    case 'buttons':
    case 'list':
    case 'poll':
      return <Choices content={content} type={message.type} />;
    case 'interactive':
    case 'button_reply':
    case 'list_reply': {
      const kind = str(content.type) ?? message.type;
      return (
        <>
          <Kind>{kind === 'list_reply' ? 'list reply' : kind === 'button_reply' ? 'button reply' : kind.replaceAll('_', ' ')}</Kind>
          <p className="msg-text">
            Chose <strong>{str(content.title) ?? str(content.body) ?? str(content.id) ?? '(no title)'}</strong>
          </p>
        </>
      );
    }
    case 'reaction': {
      const emoji = str(content.reaction);
      return (
        <p className="msg-text">
          <Kind>reaction</Kind> {emoji ? <span className="msg-emoji">{emoji}</span> : 'removed a reaction'}
        </p>
      );
    }
    case 'contact': {
      const people = content.full_name ? [content] : arr(content.contacts).map(obj);
      return (
        <>
          <Kind>contact card</Kind>
          {people.map((p, i) => (
            <p key={i} className="msg-text">
              {str(p.full_name) ?? str(obj(p.name).formatted_name) ?? 'contact'} {str(p.phone) ?? str(obj(arr(p.phones)[0]).phone) ?? ''}
            </p>
          ))}
        </>
      );
    }
    case 'call': {
      // A call to the number (docs/channels.md, Calls): its content follows it.
      const status = str(content.status) ?? 'ringing';
      const outcome = status === 'rejected' && content.rejected_by === 'parley' ? 'rejected by Parley' : status;
      return (
        <p className="msg-text">
          <Kind>call</Kind> {content.video === true ? 'Video call' : 'Voice call'}, {outcome}
        </p>
      );
    }
    case 'cta_url':
    case 'link': {
      const url = webUrl(content.url);
      return (
        <>
          <Kind>link</Kind>
          {str(content.body) ? <p className="msg-text">{str(content.body)}</p> : null}
          {url ? (
            <a className="msg-link" href={url} target="_blank" rel="noreferrer noopener">
              {str(content.display_text) ?? str(content.title) ?? url}
            </a>
          ) : null}
        </>
      );
    }
    default: {
      const text = str(content.body) ?? str(content.text) ?? str(content.caption);
      return (
        <>
          <Kind>{message.type.replaceAll('_', ' ')}</Kind>
          {text ? <p className="msg-text">{text}</p> : null}
        </>
      );
    }
  }
}
