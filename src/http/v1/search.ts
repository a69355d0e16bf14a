/** GET /v1/search: one ranked search over contacts, companies, deals and message text (domain/search). */
import { z } from 'zod';
import { MESSAGE_CANDIDATES, search, SEARCH_DEPTH_MAX, SEARCH_KINDS, type SearchHit, type SearchKind } from '../../domain/search/search.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { listOf, PageQuerySchema } from '../schemas.ts';
import type { App } from '../types.ts';

export const SearchHitSchema = z
  .object({
    kind: z.enum(SEARCH_KINDS),
    id: z.uuid().meta({ description: 'The record’s id (GET /v1/contacts/{id}, /v1/companies/{id}, /v1/deals/{id}, /v1/messages/{id})' }),
    title: z
      .string()
      .meta({ description: 'A contact’s name (or number, or email), a company’s or deal’s name, a message’s first 140 characters' }),
    snippet: z.string().nullable().meta({ description: 'A message’s words around the match (plain text, no markup); null for records' }),
    rank: z.number().meta({ description: 'How well it matches (higher is better): the order of the results' }),
    created_at: z.string(),
    conversation_id: z.uuid().nullable().meta({ description: 'A message’s conversation, or the one a deal came from' }),
    contact_id: z.uuid().nullable().meta({ description: 'The contact a message is with' }),
  })
  .meta({
    id: 'SearchHit',
    example: {
      kind: 'message',
      id: '0196b1f2-0a00-7000-8000-0000000000e1',
      title: 'Is my order 4711 on its way? It was due on Monday',
      snippet: 'Is my order 4711 on its way',
      rank: 0.0607927,
      created_at: '2025-06-02T09:30:00.000Z',
      conversation_id: '0196b1f2-0a00-7000-8000-0000000000c1',
      contact_id: '0196b1f2-0a00-7000-8000-0000000000d1',
    },
  });

const KindsParam = z
  .string()
  .max(100)
  .transform((value, ctx) => {
    const kinds = value.split(',').map((k) => k.trim());
    const unknown = kinds.find((k) => !(SEARCH_KINDS as readonly string[]).includes(k));
    if (unknown !== undefined) {
      ctx.addIssue({ code: 'custom', message: `unknown kind ${JSON.stringify(unknown)}: one of ${SEARCH_KINDS.join(', ')}` });
      return z.NEVER;
    }
    return kinds as SearchKind[];
  })
  .optional()
  .meta({
    description: `Comma-separated kinds to search: ${SEARCH_KINDS.join(', ')}. Default: every kind the credential may read`,
    example: 'contact,message',
  });

export function presentSearchHit(hit: SearchHit): z.infer<typeof SearchHitSchema> {
  return {
    kind: hit.kind,
    id: hit.id,
    title: hit.title,
    snippet: hit.snippet,
    rank: hit.rank,
    created_at: hit.createdAt.toISOString(),
    conversation_id: hit.conversationId,
    contact_id: hit.contactId,
  };
}

export async function registerSearchRoutes(app: App, deps: { db: Parameters<typeof search>[0]['db'] }) {
  app.get(
    '/v1/search',
    {
      // Each kind needs its own read permission (the domain checks them): contacts:read, crm:read, messages:read.
      config: { auth: {} },
      schema: {
        tags: ['search'],
        summary: 'Search contacts, companies, deals and messages',
        description: [
          'One ranked search over the organization’s records and message text. Every word is a prefix of a word found (`ana lim` finds Ana Lima), all words must match; a query of digits and phone punctuation is one number (`+49 151 12` finds +4915112…). Contacts match by name, email and number; companies by name, domain and number; deals by name; messages by the words of a text or a media caption (deleted messages are not found).',
          `Best match first (then newest). A credential searches the kinds it may read: contacts need contacts:read, companies and deals crm:read, messages messages:read; asking for a kind it may not read is 403 naming the permission. The newest ${MESSAGE_CANDIDATES} matching messages are ranked with the records. Pages go ${SEARCH_DEPTH_MAX} results deep: past that, refine the words.`,
        ].join('\n\n'),
        querystring: PageQuerySchema.extend({
          q: z.string().min(1).max(200).meta({ description: 'What to look for', example: 'ana lima' }),
          kinds: KindsParam,
        }),
        response: { 200: listOf(SearchHitSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom('query', search(deps, actorOf(request), { q: q.q, kinds: q.kinds, limit: q.limit, cursor: q.cursor }));
      return { data: page.items.map(presentSearchHit), meta: { next_cursor: page.nextCursor } };
    },
  );
}
