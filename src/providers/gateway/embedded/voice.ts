/**
 * Voice notes. The chat app plays a voice note (the library's `ptt`) only as Opus, mono, in OGG, with
 * the mimetype `audio/ogg; codecs=opus`. OGG audio is sent as a voice note (as on the official API):
 * Opus mono as it is; other OGG audio (Vorbis, stereo Opus) is converted with ffmpeg when the machine
 * has it (found on the PATH at the first need, never installed by Parley), and otherwise sent as a
 * plain audio file, which every phone plays (the message is not failed for want of a converter).
 * Other audio (MP3, AAC, AMR, M4A) is an audio file, as before.
 */
import { spawn } from 'node:child_process';

export const VOICE_MIMETYPE = 'audio/ogg; codecs=opus';
/** A conversion's time limit; past it the audio goes as a file. */
const CONVERT_TIMEOUT_MS = 60_000;
const CONVERTED_MAX_BYTES = 16 * 1024 * 1024;

/** What the first packet of an OGG stream says: its codec and channel count; undefined when the bytes are not OGG. */
export function oggAudioOf(bytes: Buffer): { codec: 'opus' | 'vorbis' | 'other'; channels?: number } | undefined {
  if (bytes.length < 28 || bytes.toString('latin1', 0, 4) !== 'OggS') return undefined;
  const segments = bytes[26]!;
  const packet = 27 + segments;
  if (bytes.toString('latin1', packet, packet + 8) === 'OpusHead') return { codec: 'opus', channels: bytes[packet + 9] };
  if (bytes.toString('latin1', packet + 1, packet + 7) === 'vorbis') return { codec: 'vorbis', channels: bytes[packet + 11] };
  return { codec: 'other' };
}

/** Converts audio to Opus mono in OGG; undefined when it cannot (no converter on the machine, or it failed). */
export type VoiceConverter = (bytes: Buffer) => Promise<Buffer | undefined>;

const found = new Map<string, Promise<boolean>>();

/** Whether `command` (ffmpeg) runs on this machine (asked once). */
function hasFfmpeg(command: string): Promise<boolean> {
  let answer = found.get(command);
  if (!answer) {
    answer = new Promise((resolve) => {
      const child = spawn(command, ['-version'], { stdio: 'ignore' });
      child.on('error', () => resolve(false));
      child.on('exit', (code) => resolve(code === 0));
    });
    found.set(command, answer);
  }
  return answer;
}

/** The converter through ffmpeg (`command`, default `ffmpeg` on the PATH): mono Opus at 32 kbit/s, 48 kHz, in OGG. */
export function ffmpegConverter(command = 'ffmpeg'): VoiceConverter {
  return async (bytes) => {
    if (!(await hasFfmpeg(command))) return undefined;
    return new Promise((resolve) => {
      const args = [
        '-hide_banner',
        '-loglevel',
        'error',
        '-i',
        'pipe:0',
        '-vn',
        '-ac',
        '1',
        '-ar',
        '48000',
        '-c:a',
        'libopus',
        '-b:a',
        '32k',
      ];
      const child = spawn(command, [...args, '-f', 'ogg', 'pipe:1'], { stdio: ['pipe', 'pipe', 'ignore'] });
      const chunks: Buffer[] = [];
      let size = 0;
      const timer = setTimeout(() => child.kill('SIGKILL'), CONVERT_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CONVERTED_MAX_BYTES) child.kill('SIGKILL');
        else chunks.push(chunk);
      });
      child.on('error', () => resolve(undefined));
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve(code === 0 && size <= CONVERTED_MAX_BYTES && size > 0 ? Buffer.concat(chunks) : undefined);
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(bytes);
    });
  };
}

/**
 * How audio goes: a voice note (Opus mono in OGG, converted when needed and possible) or an audio
 * file with its own type. `mimeType` is the one the media was served with.
 */
export async function audioOf(
  bytes: Buffer,
  mimeType: string | undefined,
  convert: VoiceConverter,
): Promise<{ bytes: Buffer; ptt: boolean; mimetype?: string }> {
  const ogg = oggAudioOf(bytes);
  const oggDeclared = mimeType === 'audio/ogg' || mimeType === 'audio/opus' || mimeType === 'application/ogg';
  if (!ogg && !oggDeclared) return { bytes, ptt: false, ...(mimeType ? { mimetype: mimeType } : {}) };
  if (ogg?.codec === 'opus' && ogg.channels === 1) return { bytes, ptt: true, mimetype: VOICE_MIMETYPE };
  const converted = await convert(bytes);
  if (converted && oggAudioOf(converted)?.codec === 'opus') return { bytes: converted, ptt: true, mimetype: VOICE_MIMETYPE };
  // No converter (or it failed): an audio file the phone plays, not a voice note it would not.
  return { bytes, ptt: false, mimetype: ogg?.codec === 'opus' ? VOICE_MIMETYPE : (mimeType ?? 'audio/ogg') };
}
