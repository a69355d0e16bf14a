/**
 * Form bodies for the OAuth endpoints. RFC 6749, 7009, 7662 and 8628 clients send
 * application/x-www-form-urlencoded; everywhere else bodies are JSON only (app.ts). @fastify/formbody
 * registers the parser in the OAuth endpoints' own plugin scope, so no other route accepts a form (a
 * cross-site HTML form can send one without a CORS preflight); the parameters are read by our
 * parser, which holds them to RFC 6749's rules (its default one makes a repeated parameter an array).
 */
import formBody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.ts';

/**
 * A form body as one string per parameter. RFC 6749 §3.1: a parameter sent without a value counts
 * as omitted, and none may be sent more than once (refused naming it).
 */
export function parseOAuthForm(text: string): Record<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (value === '') continue;
    if (values.has(name)) {
      throw new DomainError('invalid', `parameter ${JSON.stringify(name.slice(0, 64))} is given more than once`, {
        fieldErrors: [{ pointer: `/${name.slice(0, 64)}`, location: 'body', message: 'given more than once' }],
      });
    }
    values.set(name, value);
  }
  // Own data properties only: a parameter named __proto__ is a key like any other.
  return Object.fromEntries(values);
}

/**
 * Lets the routes of this plugin scope take form bodies as well as JSON (and nothing else), within the
 * server's body limit like any body.
 */
export async function registerOAuthFormParser(scope: Pick<FastifyInstance, 'register'>): Promise<void> {
  await scope.register(formBody, { parser: parseOAuthForm });
}
