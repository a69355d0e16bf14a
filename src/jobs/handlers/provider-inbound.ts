/** Applies one stored provider delivery (domain/inbound/apply.ts). */
import { applyProviderDelivery, type InboundApplyDeps } from '../../domain/inbound/apply.ts';

export function providerInboundHandler(deps: InboundApplyDeps) {
  return async ({ provider_event_id }: { provider_event_id: string }) => applyProviderDelivery(deps, { deliveryId: provider_event_id });
}
