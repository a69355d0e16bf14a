/**
 * An exclusive lock file. PGlite does not stop a second process from opening the same data
 * directory (which would corrupt it), so the process that opens it first writes its pid here and
 * any other process refuses to start while that pid is alive.
 */
import { readFileSync, renameSync, unlinkSync } from 'node:fs';
import { createFileAtomically } from './write-once.ts';

export type DirLock = { release(): void };

export class LockedError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireDirLock(file: string): DirLock {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createFileAtomically(file, String(process.pid))) {
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
          } catch {
            // already gone
          }
        },
      };
    }
    let holderText: string;
    try {
      holderText = readFileSync(file, 'utf8');
    } catch {
      continue; // released meanwhile: try again
    }
    const holder = Number.parseInt(holderText, 10);
    if (Number.isFinite(holder) && holder !== process.pid && isAlive(holder)) {
      throw new LockedError(
        `${file} is held by process ${holder}: the embedded database allows one process at a time (use DATABASE_URL to run several)`,
      );
    }
    // A stale lock left by a process that died: move it aside under a name of our own, so two
    // processes taking it over at once cannot both delete a lock the other just made.
    const aside = `${file}.stale.${process.pid}`;
    try {
      renameSync(file, aside);
      if (readFileSync(aside, 'utf8') === holderText) unlinkSync(aside);
      else renameSync(aside, file); // not the stale one we read: put it back
    } catch {
      // someone else moved it first
    }
  }
  throw new LockedError(`could not take ${file}`);
}
