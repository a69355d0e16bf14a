// The SDK's generated files are what the service's current OpenAPI document produces (CI fails on a
// document changed without regenerating), and the table's naming rule holds for the whole document.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { GROUPS, OPERATIONS } from '@parley/sdk';
import { OPERATION_IDS } from '../../../src/http/operation-ids.ts';
import { GENERATE_COMMAND, staleGeneratedFiles } from '../scripts/generate.ts';
import { loadOpenApiDocument, type OpenApiDocument } from '../scripts/openapi-document.ts';
import { methodName, operationsTable } from '../scripts/operations-table.ts';

let document: OpenApiDocument;
before(async () => {
  document = await loadOpenApiDocument();
});

test('the checked-in generated files are what the current OpenAPI document produces', async () => {
  const stale = await staleGeneratedFiles(document);
  assert.deepEqual(
    stale,
    [],
    `the SDK's generated files are out of date with the OpenAPI document: run \`${GENERATE_COMMAND}\` and commit ${stale.join(', ')}`,
  );
});

test('every operation of the document is in the table, under its operationId; every one not left out is a method of its group', () => {
  assert.deepEqual(Object.keys(OPERATIONS).sort(), Object.values(OPERATION_IDS).sort());
  const entries = operationsTable(document);
  for (const entry of entries) {
    if (entry.excluded) continue;
    assert.equal((GROUPS as Record<string, Record<string, string>>)[entry.group!]?.[entry.name!], entry.operationId);
  }
  const excluded = entries.filter((e) => e.excluded).map((e) => e.operationId);
  assert.ok(excluded.includes('receiveOfficialWebhook') && excluded.includes('logIn') && excluded.includes('authorize'));
  assert.ok(!excluded.includes('getToken') && !excluded.includes('startDeviceAuthorization'), 'the OAuth client endpoints stay');
});

test("the naming rule: the operationId without its group's noun, a reserved word kept whole", () => {
  assert.equal(methodName('sendMessage', 'messages'), 'send');
  assert.equal(methodName('listMessages', 'messages'), 'list');
  assert.equal(methodName('getMessageStatus', 'messages'), 'getStatus');
  assert.equal(methodName('listConversationMessages', 'conversations'), 'listMessages');
  assert.equal(methodName('createWebhookEndpoint', 'webhooks'), 'createEndpoint');
  assert.equal(methodName('rotateOAuthClientSecret', 'oauth-clients'), 'rotateSecret');
  assert.equal(methodName('createApiKey', 'api-keys'), 'create');
  assert.equal(methodName('getContactByPhone', 'contacts'), 'getByPhone');
  assert.equal(methodName('importContacts', 'contacts'), 'importContacts');
  assert.equal(methodName('deleteChannel', 'channels'), 'delete');
  assert.equal(methodName('sendTyping', 'messages'), 'sendTyping');
});

test('the document breaking a rule the client relies on fails the generation, naming the operation', () => {
  const broken = structuredClone(document) as OpenApiDocument;
  delete (broken.paths['/v1/messages']!.post as Record<string, unknown>).operationId;
  (broken.paths['/v1/channels']!.get as Record<string, unknown>).operationId = 'listChannels';
  (broken.paths['/v1/channels/{channelID}']!.get as Record<string, unknown>).operationId = 'listChannel';
  assert.throws(() => operationsTable(broken), /POST \/v1\/messages has no operationId[\s\S]*both become channels\.list/);
});
