import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asReference } from './openapi.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const object = (properties: Record<string, unknown>, closed: boolean) => ({
  type: 'object',
  properties,
  ...(closed ? { additionalProperties: false } : {}),
});

test('twins: an input variant takes its shape name, or stays XInput where the output is used too and differs; unused schemas go', () => {
  const body = (schema: unknown) => ({ requestBody: { content: { 'application/json': { schema } } } });
  const answer = (schema: unknown) => ({ responses: { 200: { description: 'ok', content: { 'application/json': { schema } } } } });
  const doc = {
    paths: {
      // A request-only shape that nests another request-only shape.
      '/a': { post: { ...body(ref('ParcelInput')), ...answer(ref('Receipt')) } },
      // A shape both sent and answered, differing (responses hold nothing else).
      '/b': { put: { ...body(ref('NoteInput')), ...answer(ref('Note')) } },
    },
    components: {
      schemas: {
        Parcel: object({ line: ref('Line') }, true),
        ParcelInput: object({ line: ref('LineInput') }, false),
        Line: object({ sku: { type: 'string' } }, true),
        LineInput: object({ sku: { type: 'string' } }, false),
        Receipt: object({ id: { type: 'string', example: 'r1' } }, true),
        ReceiptInput: object({ id: { type: 'string', example: 'r1' } }, false),
        Note: object({ text: { type: 'string', example: 'hi' } }, true),
        NoteInput: object({ text: { type: 'string', example: 'hi' } }, false),
        Unused: { type: 'string' },
      },
    },
  };
  const out = asReference(structuredClone(doc));
  assert.deepEqual(Object.keys(out.components.schemas).sort(), ['Line', 'Note', 'NoteInput', 'Parcel', 'Receipt']);
  assert.deepEqual(
    out.components.schemas.Parcel,
    object({ line: ref('Line') }, false),
    'the request shape, named after itself, refers to its parts by their names',
  );
  assert.deepEqual(out.paths['/a'].post.requestBody.content['application/json'].schema, ref('Parcel'));
  assert.deepEqual(out.paths['/b'].put.requestBody.content['application/json'].schema, ref('NoteInput'));
  assert.deepEqual(out.paths['/a'].post.responses[200].content['application/json'], {
    schema: ref('Receipt'),
    examples: { example_1: { value: { id: 'r1' } } },
  });
});
