/**
 * The baseline of bench/request-path.ts: a bare Fastify server (no hooks, no logger, no
 * authentication) in a process of its own, whose routes run the same SQL as the service's hot read
 * routes, as named (prepared) statements through a pg Pool of 10 on the same database; and a bare
 * POST route with a JSON schema that touches no database.
 *
 * Environment (set by the parent): BARE_PORT, DATABASE_URL (PostgreSQL) or BARE_PGLITE_DIR (a copy
 * of the service's PGlite data directory: then there is no pool, one embedded connection),
 * BARE_ORG (the organization the queries read). Prints `listening` when ready.
 */
import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';
import pg from 'pg';

const port = Number(process.env.BARE_PORT);
const org = process.env.BARE_ORG!;

type Query = (name: string, text: string, values: unknown[]) => Promise<Array<Record<string, unknown>>>;
let query: Query;
if (process.env.DATABASE_URL) {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  query = async (name, text, values) => (await pool.query({ name, text, values })).rows as Array<Record<string, unknown>>;
} else {
  const db = await PGlite.create(process.env.BARE_PGLITE_DIR!);
  query = async (_name, text, values) => (await db.query<Record<string, unknown>>(text, values)).rows;
}

// The statements the service's routes send (drizzle's text, columns spelled out there, `*` here).
const CHANNELS = `select * from channels where organization_id = $1 order by created_at desc, id desc limit $2`;
const MESSAGE = `select m.*, row_to_json(mm) as media from messages m
  left join message_media mm on mm.message_id = m.id where m.id = $1 and m.organization_id = $2 limit $3`;
const TAGS = `coalesce((select json_agg(t.name order by lower(t.name), t.name) from contact_tags ct join tags t on t.id = ct.tag_id where ct.contact_id = c.id), '[]'::json) as tags`;
const CONTACT = `select c.*, ${TAGS} from contacts c where c.organization_id = $1 and c.id = $2 limit $3`;
const LOOKUP = `select c.*, ${TAGS} from contacts c where c.organization_id = $1 and c.id in (select i.contact_id from contact_identities i
  where i.organization_id = $1 and i.type = $2 and i.source = $3 and i.value = $4) limit $5`;

const app = Fastify({ logger: false });

app.get('/bare/channels', async () => ({ data: await query('bare_channels', CHANNELS, [org, 51]), meta: { next_cursor: null } }));

app.get<{ Params: { id: string } }>('/bare/messages/:id', async (request, reply) => {
  const [row] = await query('bare_message', MESSAGE, [request.params.id, org, 1]);
  return row ? { data: row } : reply.code(404).send({ error: 'not found' });
});

app.get<{ Params: { id: string } }>('/bare/contacts/:id', async (request, reply) => {
  const [row] = await query('bare_contact', CONTACT, [org, request.params.id, 1]);
  return row ? { data: row } : reply.code(404).send({ error: 'not found' });
});

app.post<{ Body: { identifiers: Array<{ type: string; value: string; source?: string }> } }>(
  '/bare/contacts/lookup',
  {
    schema: {
      body: {
        type: 'object',
        required: ['identifiers'],
        properties: {
          identifiers: {
            type: 'array',
            minItems: 1,
            maxItems: 10,
            items: {
              type: 'object',
              required: ['type', 'value'],
              properties: { type: { type: 'string' }, value: { type: 'string' }, source: { type: 'string' } },
            },
          },
        },
      },
    },
  },
  async (request, reply) => {
    const identifier = request.body.identifiers[0]!;
    const rows = await query('bare_lookup', LOOKUP, [org, identifier.type, identifier.source ?? '', identifier.value, 2]);
    return rows.length === 1 ? { data: rows[0] } : reply.code(404).send({ error: 'not found' });
  },
);

// POST /v1/messages's body, as a plain JSON schema; answered without a database.
app.post(
  '/bare/messages',
  {
    schema: {
      body: {
        type: 'object',
        required: ['channel_id', 'to', 'type', 'content'],
        properties: {
          channel_id: { type: 'string', format: 'uuid' },
          to: { type: 'string', minLength: 1, maxLength: 40 },
          type: { type: 'string', enum: ['text', 'image', 'template'] },
          content: { type: 'object', required: ['body'], properties: { body: { type: 'string', minLength: 1, maxLength: 4096 } } },
        },
      },
      response: {
        201: {
          type: 'object',
          properties: {
            data: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                status: { type: 'string' },
                channel_id: { type: 'string' },
                to: { type: 'string' },
                created_at: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
  async (request, reply) => {
    const body = request.body as { channel_id: string; to: string };
    return reply.code(201).send({
      data: { id: crypto.randomUUID(), status: 'queued', channel_id: body.channel_id, to: body.to, created_at: new Date().toISOString() },
    });
  },
);

await app.listen({ port, host: '127.0.0.1' });
console.log('listening');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
