/**
 * The official provider's business cloud API, provider side: numbers, tokens, sends, templates and
 * the embedded-signup exchange, with the provider's own answers and error codes.
 */
import { bindContext, type SandboxContext } from './context.ts';
import { listTemplates } from './official/list-templates.ts';
import { getObject, listPhoneNumbers, provisionNumber, register, subscribeApp } from './official/numbers.ts';
import { sendMessage } from './official/send.ts';
import { officialApiBase } from './official/shared.ts';
import { exchangeCode, signup } from './official/signup.ts';
import { submitTemplate } from './official/submit-template.ts';
import { uploadMedia } from './official/upload-media.ts';
import { authenticate, debugToken } from './official/tokens.ts';

/**
 * The API's verbs, by what they touch, under official/: numbers.ts (provision, read an object,
 * register, list, subscribe the app), send.ts, upload-media.ts, list-templates.ts, submit-template.ts, signup.ts
 * (signup and the code exchange), tokens.ts (authenticate, debug_token); shared.ts what they share.
 */
export function createOfficialApi(ctx: SandboxContext) {
  const bind = bindContext(ctx);
  return {
    apiBase: officialApiBase(ctx),
    provisionNumber: bind(provisionNumber),
    authenticate,
    send: bind(sendMessage),
    uploadMedia: bind(uploadMedia),
    getObject: bind(getObject),
    register: bind(register),
    listTemplates: bind(listTemplates),
    submitTemplate: bind(submitTemplate),
    listPhoneNumbers,
    subscribeApp: bind(subscribeApp),
    signup: bind(signup),
    exchangeCode: bind(exchangeCode),
    debugToken: bind(debugToken),
  };
}

export type OfficialApi = ReturnType<typeof createOfficialApi>;
