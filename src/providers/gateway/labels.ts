/**
 * Business labels and status posts for both engines of unofficial channels (capabilities
 * `labels.manage`, `status.post`): an HTTP gateway through the protocol's calls
 * (docs/gateway-protocol.md, "Labels" and "Status"), the embedded engine through a command its
 * session's holder runs (embedded/labels.ts). A status post's image or video is fetched here, under the
 * target policy, for the embedded engine; an HTTP gateway is given the URL, as it is for media sends.
 */
import type { AdapterCalls, ChannelConnection, LabelCalls, ProviderLabel, Result, StatusPost } from '../provider.ts';
import { NO_ENGINE } from './access.ts';
import type { EngineAccess } from './groups.ts';
import type { LabelRequest } from './embedded/labels.ts';
import { fetchMedia } from './embedded/outbound-media.ts';

type LabelWire = { id?: unknown; name?: unknown; color?: unknown };

function labelOfWire(wire: LabelWire, asked: ProviderLabel): ProviderLabel {
  return {
    id: typeof wire.id === 'string' && wire.id !== '' ? wire.id : asked.id,
    name: typeof wire.name === 'string' ? wire.name : asked.name,
    color: Number.isInteger(wire.color) ? (wire.color as number) : asked.color,
  };
}

export function createLabelCalls(access: EngineAccess): LabelCalls & { postStatus: NonNullable<AdapterCalls['postStatus']> } {
  const path = (connection: ChannelConnection, rest = '') => `sessions/${access.session(connection)}/labels${rest}`;

  /** Runs a request on the embedded engine, or answers undefined for an HTTP gateway. */
  const onEmbedded = async <T>(
    connection: ChannelConnection,
    request: LabelRequest,
    read: (value: unknown) => T,
  ): Promise<Result<T> | undefined> => {
    const engine = access.embedded(connection);
    if (engine === undefined) return undefined;
    if (engine === null) return { ok: false, error: NO_ENGINE };
    const answer = await engine.label(connection.channelId, request);
    return answer.ok ? { ok: true, value: read(answer.value) } : answer;
  };

  return {
    async save(connection, label) {
      const embedded = await onEmbedded(connection, { op: 'save', label }, (v) => labelOfWire(v as LabelWire, label));
      if (embedded) return embedded;
      const result = await access
        .client(connection)
        .call<LabelWire>('PUT', path(connection, `/${encodeURIComponent(label.id)}`), { name: label.name, color: label.color });
      return result.ok ? { ok: true, value: labelOfWire(result.value, label) } : result;
    },

    async remove(connection, labelId) {
      const embedded = await onEmbedded(connection, { op: 'remove', labelId }, () => ({ removed: true as const }));
      if (embedded) return embedded;
      const result = await access.client(connection).call('DELETE', path(connection, `/${encodeURIComponent(labelId)}`));
      return result.ok ? { ok: true, value: { removed: true } } : result;
    },

    async assign(connection, input) {
      const embedded = await onEmbedded(connection, { op: 'assign', ...input }, () => ({ changed: true as const }));
      if (embedded) return embedded;
      const result = await access.client(connection).call('POST', path(connection, `/${encodeURIComponent(input.labelId)}/chats`), {
        chat: input.chat,
        action: input.action,
        ...(input.messageId ? { message_id: input.messageId } : {}),
      });
      return result.ok ? { ok: true, value: { changed: true } } : result;
    },

    async postStatus(connection, post: StatusPost) {
      const engine = access.embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) {
        let request: LabelRequest;
        if (post.type === 'text') request = { op: 'status', post };
        else {
          const fetched = await fetchMedia(post.url, post.type, access.targets);
          if (!fetched.ok) return fetched;
          request = {
            op: 'status',
            post: {
              type: post.type,
              media: fetched.value.bytes.toString('base64'),
              mimeType: fetched.value.mimeType ?? (post.type === 'image' ? 'image/jpeg' : 'video/mp4'),
              ...(post.caption ? { caption: post.caption } : {}),
              recipients: post.recipients,
            },
          };
        }
        const answer = await engine.label(connection.channelId, request);
        if (!answer.ok) return answer;
        return { ok: true, value: { id: String((answer.value as { id: string }).id) } };
      }
      const body =
        post.type === 'text'
          ? { type: 'text', text: post.text, background_color: post.backgroundColor, font: post.font, recipients: post.recipients }
          : { type: post.type, url: post.url, ...(post.caption ? { caption: post.caption } : {}), recipients: post.recipients };
      const result = await access.client(connection).call<{ id?: unknown }>('POST', `sessions/${access.session(connection)}/status`, body);
      if (!result.ok) return result;
      if (typeof result.value.id !== 'string' || result.value.id === '')
        return { ok: false, error: { code: 'bad_response', title: 'the gateway answered without the post’s id', retryable: false } };
      return { ok: true, value: { id: result.value.id } };
    },
  };
}
