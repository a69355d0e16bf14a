/** POST /{phone_number_id}/media: a file uploaded as the provider takes it (multipart), held for sends by id and read back with GET /{media_id}. */
import type { Executor } from '../../db/client.ts';
import { sandboxMedia } from '../../db/schema.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, ok, official, type OfficialResult } from '../errors.ts';
import { numericId } from '../ids.ts';
import type { Json } from './shared.ts';

const MB = 1024 * 1024;

/** The provider's supported media: each type it takes an upload of, and the most bytes for it. */
const UPLOAD_LIMITS: Record<string, number> = {
  'audio/aac': 16 * MB,
  'audio/amr': 16 * MB,
  'audio/mpeg': 16 * MB,
  'audio/mp4': 16 * MB,
  'audio/ogg': 16 * MB,
  'text/plain': 100 * MB,
  'application/pdf': 100 * MB,
  'application/msword': 100 * MB,
  'application/vnd.ms-excel': 100 * MB,
  'application/vnd.ms-powerpoint': 100 * MB,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 100 * MB,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 100 * MB,
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 100 * MB,
  'image/jpeg': 5 * MB,
  'image/png': 5 * MB,
  // Animated stickers; a static one is 100 KB at most, which only the app that shows it checks.
  'image/webp': 500 * 1024,
  'video/mp4': 16 * MB,
  'video/3gpp': 16 * MB,
};

/** The largest upload the provider takes, and room for the form around it. */
export const UPLOAD_BODY_MAX = 100 * MB + MB;

/** An upload's form fields as the HTTP side read them; `file` undefined when no part held a file. */
export type UploadForm = { messagingProduct?: string; type?: string; file?: { bytes: Uint8Array } };

export async function uploadMedia(
  ctx: SandboxContext,
  db: Executor,
  account: AccountRow,
  phoneNumberId: string,
  form: UploadForm,
): Promise<OfficialResult<Json>> {
  if (account.id !== phoneNumberId) return fail(official.unknownObject('POST', phoneNumberId));
  if (form.messagingProduct === undefined) return fail(official.missingParameter('The parameter messaging_product is required.'));
  if (form.messagingProduct !== 'whatsapp') return fail(official.invalidValue("Param messaging_product must be 'whatsapp'."));
  if (!form.file) return fail(official.missingParameter('The parameter file is required.'));
  if (!form.type) return fail(official.missingParameter('The parameter type is required.'));
  const limit = UPLOAD_LIMITS[form.type];
  if (limit === undefined)
    return fail(
      official.invalidParameter(
        `Param file must be a file with one of the following types: ${Object.keys(UPLOAD_LIMITS).join(', ')}. Received file of type '${form.type}'.`,
      ),
    );
  if (form.file.bytes.length > limit)
    return fail(official.invalidParameter(`Param file must be at most ${limit} bytes for type ${form.type}.`));
  const id = numericId();
  await db.insert(sandboxMedia).values({
    id,
    accountId: account.id,
    mimeType: form.type,
    data: Buffer.from(form.file.bytes).toString('base64'),
    paddedSize: null,
    createdAt: ctx.clock.now(),
  });
  return ok({ id });
}
