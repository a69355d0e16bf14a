/** Files created whole or not at all: written to a private temp name, then linked into place. */
import { linkSync, unlinkSync, writeFileSync } from 'node:fs';

/** Creates `file` holding `content`; false when it already exists (nobody ever sees it half written). */
export function createFileAtomically(file: string, content: string, mode = 0o600): boolean {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temp, content, { mode, flag: 'wx' });
  try {
    linkSync(temp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(temp);
  }
}
