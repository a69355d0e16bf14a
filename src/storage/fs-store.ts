/**
 * The media store on the local filesystem (the default, under DATA_DIR/media). Objects are files in
 * directories sharded by a hash of the key (two levels of 256), so no directory grows huge. A put
 * writes a temp file in the same directory and renames it into place once complete: a reader sees
 * the old object or the new one, never half of one; an aborted put removes its temp file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertKey, type ByteRange, type MediaStore } from './media-store.ts';

export function createFsMediaStore(root: string): MediaStore {
  const base = path.resolve(root);
  const fileOf = (key: string) => {
    assertKey(key);
    const hash = createHash('sha256').update(key).digest('hex');
    // The key's own characters are path-safe; its slashes become double underscores within one file name.
    return path.join(base, hash.slice(0, 2), hash.slice(2, 4), key.replaceAll('/', '__'));
  };

  return {
    describe: `filesystem ${base}`,

    async put(key, body) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(6).toString('hex')}.partial`;
      try {
        await pipeline(Readable.from(body, { objectMode: false }), createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
        await rename(temp, file);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
    },

    async get(key, range?: ByteRange) {
      let handle;
      try {
        handle = await open(fileOf(key), 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
      // The size and the bytes of one opened file: a rename replacing it meanwhile changes neither.
      try {
        const { size } = await handle.stat();
        return { body: handle.createReadStream(range ? { start: range.start, end: range.end } : {}), size };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async delete(key) {
      await rm(fileOf(key), { force: true });
    },

    async exists(key) {
      try {
        return (await stat(fileOf(key))).isFile();
      } catch {
        return false;
      }
    },
  };
}
