import type { Actor } from '../../domain/actor.ts';
import { DomainError } from '../../domain/errors.ts';

/** The actor of an authenticated route; routes that declare auth can rely on it. */
export function actorOf(request: { actor: Actor | undefined }): Actor {
  if (!request.actor) throw new DomainError('unauthenticated', 'invalid or missing API key');
  return request.actor;
}
