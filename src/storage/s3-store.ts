/**
 * The media store in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, ...), for installs whose
 * processes run on several machines. Puts stream through lib-storage's Upload: one PutObject for a
 * small body, a multipart upload in 8 MB parts for a big one. S3 makes an object visible only once
 * it is complete, and a put whose body fails aborts its multipart upload, so nothing half-written is
 * ever under a key. Reads pass a Range through.
 */
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { assertKey, type ByteRange, type MediaStore } from './media-store.ts';

export type S3StoreSettings = {
  bucket: string;
  region: string;
  /** An S3-compatible server's address; AWS's own when unset. */
  endpoint?: string;
  /** Static credentials; the SDK's default chain (instance roles, shared files) when unset. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style addressing (`{endpoint}/{bucket}/{key}`), which most self-hosted servers need. */
  forcePathStyle: boolean;
  /** Prepended to every key (e.g. `parley/`). */
  prefix: string;
};

/** Parts of a multipart upload: S3's minimum is 5 MB. */
const PART_BYTES = 8 * 1024 * 1024;

function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
}

export function createS3MediaStore(settings: S3StoreSettings): MediaStore & { client: S3Client } {
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
    // Checksums only where the operation requires them: many S3-compatible servers refuse the
    // newer default (a trailing CRC on every streamed upload).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const keyOf = (key: string) => {
    assertKey(key);
    return `${settings.prefix}${key}`;
  };

  return {
    client,
    describe: `s3 ${settings.endpoint ?? `region ${settings.region}`} bucket ${settings.bucket}${settings.prefix ? ` prefix ${settings.prefix}` : ''}`,

    async put(key, body, options) {
      const upload = new Upload({
        client,
        params: {
          Bucket: settings.bucket,
          Key: keyOf(key),
          Body: Readable.from(body, { objectMode: false }),
          ContentType: options.contentType,
        },
        partSize: PART_BYTES,
        queueSize: 2,
        // Aborted below, so that the body's own error is the one thrown.
        leavePartsOnError: true,
      });
      try {
        await upload.done();
      } catch (err) {
        const uploadId = (upload as unknown as { uploadId?: string }).uploadId;
        if (uploadId) {
          // Parts of an aborted upload are never an object; a server that cannot abort keeps them
          // until the bucket's lifecycle rule for incomplete uploads clears them (docs/media.md).
          await client
            .send(new AbortMultipartUploadCommand({ Bucket: settings.bucket, Key: keyOf(key), UploadId: uploadId }))
            .catch(() => undefined);
        }
        throw err;
      }
    },

    async get(key, range?: ByteRange) {
      try {
        const answer = await client.send(
          new GetObjectCommand({
            Bucket: settings.bucket,
            Key: keyOf(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        const total = /\/(\d+)$/.exec(answer.ContentRange ?? '');
        const size = total ? Number(total[1]) : Number(answer.ContentLength ?? 0);
        return { body: answer.Body as Readable, size };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: keyOf(key) }));
    },

    async exists(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: settings.bucket, Key: keyOf(key) }));
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },
  };
}
