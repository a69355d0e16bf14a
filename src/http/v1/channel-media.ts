/**
 * POST /v1/channels/{channelID}/media: a file uploaded to the channel's provider, to send by
 * `media_id` (large or private files need no public URL). The body is multipart/form-data, read as a
 * stream in a scope of its own (its own parser and size limit; the global limit is for JSON bodies).
 */
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { uploadChannelMedia, type UploadedMedia } from '../../domain/channels/media-upload.ts';
import type { ProviderCallDeps } from '../../domain/channels/pairing.ts';
import { invalid } from '../../domain/errors.ts';
import { MEDIA_KINDS, MEDIA_RULES } from '../../domain/messages/media.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { MultipartError, readMultipart } from '../multipart.ts';
import { dataOf, PathId } from '../schemas.ts';
import type { App } from '../types.ts';

/** The largest file the provider takes (a document), and room for the form around it. */
export const UPLOAD_MAX_BYTES = MEDIA_RULES.document!.maxBytes + 1024 * 1024;

export const UploadedMediaSchema = z
  .object({
    id: z.string().meta({
      description: "The provider's media id: send it as `content.media_id` (image, video, audio, document, sticker, or a header's media)",
    }),
    type: z.enum(MEDIA_KINDS).meta({ description: 'The kind the file was uploaded as' }),
    mime_type: z.string().meta({ description: 'The type the provider was given (told by the bytes where they tell one)' }),
    size: z.number().int().meta({ description: 'Bytes' }),
    file_name: z.string().nullable().meta({ description: 'The file name the form part gave' }),
  })
  .meta({ id: 'UploadedMedia', description: 'A file the channel’s provider now holds' });

const UploadBody = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'The file (a form part with a file name and its Content-Type)' }),
    type: z
      .enum(MEDIA_KINDS)
      .optional()
      .meta({ description: 'The kind to send it as; told by the file’s type when absent (image/webp: sticker)' }),
  })
  .meta({ id: 'MediaUploadRequest' });

function presentUploadedMedia(media: UploadedMedia): z.infer<typeof UploadedMediaSchema> {
  return { id: media.mediaId, type: media.kind, mime_type: media.mimeType, size: media.size, file_name: media.fileName };
}

/** The refusal HTTP makes of a body that is not a form this route can read. */
function formRefusal(err: MultipartError) {
  switch (err.reason) {
    case 'not_multipart':
      return new HttpError('unsupported_media_type', 'send the file as multipart/form-data, in a part named file');
    case 'too_large':
      return new HttpError('payload_too_large', `an upload is at most ${UPLOAD_MAX_BYTES} bytes (the form around a 100 MB document)`);
    case 'malformed':
      return invalid(`the body is not a form: ${err.message}`, [{ pointer: '/', location: 'body', message: err.message }]);
    default:
      return err.reason satisfies never;
  }
}

export async function registerChannelMediaRoute(app: App, deps: ProviderCallDeps) {
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.post(
      '/v1/channels/:channelID/media',
      {
        config: { auth: { permission: 'messages:send' } },
        bodyLimit: UPLOAD_MAX_BYTES,
        // The body is a stream read by the handler; the schema below documents it.
        validatorCompiler: (route) =>
          route.httpPart === 'body' ? () => true : validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0]),
        schema: {
          tags: ['channels'],
          summary: 'Upload media to send by id',
          description: [
            "Uploads a file to the channel's provider and answers the provider's media id, to send as `content.media_id` instead of a public `media_url` (image, video, audio, document and sticker messages, and interactive headers). Channels whose platform has `media.upload` (official); others answer 422 `unsupported` naming the operation.",
            'multipart/form-data with the file in a part named `file` (with its file name and Content-Type), and optionally `type`: the kind to send it as (told by the file’s type when absent).',
            "The provider's limits are checked first, naming `/file` (422): image 5 MB JPEG/PNG; video 16 MB MP4/3GPP; audio 16 MB AAC/AMR/MP3/M4A/OGG; document 100 MB text, PDF or Office; sticker WebP, 100 KB static, 500 KB animated. The type is told by the bytes where they tell one, else the part's Content-Type. 413 past the largest (a document and its form), 415 for another body type.",
          ].join('\n\n'),
          consumes: ['multipart/form-data'],
          params: z.object({ channelID: PathId }),
          body: UploadBody,
          response: { 201: dataOf(UploadedMediaSchema), ...errorResponses([400, 401, 403, 404, 413, 415, 422, 503]) },
        },
      },
      async (request, reply) => {
        const form = await readMultipart(request.body, request.headers, UPLOAD_MAX_BYTES).catch((err: unknown) => {
          if (!(err instanceof MultipartError)) throw err;
          // What is left of a body too big is not read: the connection ends with the answer.
          if (err.reason === 'too_large') void reply.header('connection', 'close');
          throw formRefusal(err);
        });
        const file = form.get('file');
        if (!(file instanceof File))
          throw invalid('file is required: a form part named file holding the file (with its file name)', [
            { pointer: '/file', location: 'body', message: 'required: a file part' },
          ]);
        const kind = form.get('type');
        const uploaded = await inputFrom(
          'body',
          uploadChannelMedia(deps, actorOf(request), {
            channelId: request.params.channelID,
            ...(typeof kind === 'string' ? { kind } : {}),
            bytes: new Uint8Array(await file.arrayBuffer()),
            declaredType: file.type,
            fileName: file.name,
          }),
        );
        return reply.code(201).send({ data: presentUploadedMedia(uploaded) });
      },
    );
  });
}
