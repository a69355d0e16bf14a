import { storeInboundMedia, type MediaStoreDeps } from '../../domain/messages/inbound-media.ts';

/** Downloads an inbound message's media into the media store (domain/messages/inbound-media.ts). */
export function messageMediaHandler(deps: MediaStoreDeps) {
  return async ({ message_id }: { message_id: string }) => storeInboundMedia(deps, { messageId: message_id });
}
