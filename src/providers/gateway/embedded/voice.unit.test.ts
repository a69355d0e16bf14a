import assert from 'node:assert/strict';
import { test } from 'node:test';
import { audioOf, ffmpegConverter, oggAudioOf, VOICE_MIMETYPE } from './voice.ts';

/** The first page of an OGG stream whose first packet is `packet`. */
const ogg = (packet: Buffer) => {
  const page = Buffer.alloc(27);
  page.write('OggS', 0, 'latin1');
  page[26] = 1;
  return Buffer.concat([page, Buffer.from([packet.length]), packet]);
};
const opus = (channels: number) => ogg(Buffer.concat([Buffer.from('OpusHead'), Buffer.from([1, channels]), Buffer.alloc(9)]));
const vorbis = ogg(Buffer.concat([Buffer.from('\x01vorbis', 'latin1'), Buffer.from([0, 0, 0, 0, 2]), Buffer.alloc(20)]));

test('the codec and channels of OGG audio are read from its first packet', () => {
  assert.deepEqual(oggAudioOf(opus(1)), { codec: 'opus', channels: 1 });
  assert.deepEqual(oggAudioOf(opus(2)), { codec: 'opus', channels: 2 });
  assert.deepEqual(oggAudioOf(vorbis), { codec: 'vorbis', channels: 2 });
  assert.equal(oggAudioOf(Buffer.from('ID3\x04 an mp3')), undefined);
});

test('a voice note is Opus mono in OGG: sent as it is, converted, or (with no converter) an audio file', async () => {
  const none = async () => undefined;
  assert.deepEqual(await audioOf(opus(1), 'audio/ogg', none), { bytes: opus(1), ptt: true, mimetype: VOICE_MIMETYPE });
  assert.deepEqual(await audioOf(vorbis, 'audio/ogg', async () => opus(1)), { bytes: opus(1), ptt: true, mimetype: VOICE_MIMETYPE });
  assert.deepEqual(await audioOf(vorbis, 'audio/ogg', none), { bytes: vorbis, ptt: false, mimetype: 'audio/ogg' });
  // A converter whose output is not Opus is not trusted.
  assert.equal((await audioOf(vorbis, 'audio/ogg', async () => Buffer.from('junk'))).ptt, false);
  const mp3 = Buffer.from('ID3\x04 an mp3');
  assert.deepEqual(await audioOf(mp3, 'audio/mpeg', async () => opus(1)), { bytes: mp3, ptt: false, mimetype: 'audio/mpeg' });
});

test('without ffmpeg on the machine the converter converts nothing (and says so by undefined)', async () => {
  assert.equal(await ffmpegConverter('/nonexistent/parley-ffmpeg')(vorbis), undefined);
});
