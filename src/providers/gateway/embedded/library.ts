/**
 * The chat library (baileys), loaded on first need: a process that never opens a paired session, or
 * an API-only one, does not pay its memory (about 55 MB of RSS once imported). The engine loads it
 * before it opens a socket or reads a session's keys, and the media download before it decrypts, so the
 * synchronous parts (normalizing a socket's events, reading a media location) find it loaded.
 */
import type * as Baileys from 'baileys';

let loaded: typeof Baileys | undefined;
let loading: Promise<typeof Baileys> | undefined;

/** Loads the library once; every later call resolves to the same module. */
export function loadLibrary(): Promise<typeof Baileys> {
  loading ??= import('baileys').then((module) => (loaded = module));
  return loading;
}

/** The loaded library; throws when nothing has loaded it yet (a code path that skipped loadLibrary). */
export function library(): typeof Baileys {
  if (!loaded) throw new Error('the chat library is used before it was loaded (loadLibrary)');
  return loaded;
}
