// The linter: ESLint's and typescript-eslint's recommended rules (syntax-level, no type information,
// so it stays fast), with the few that fight the house style turned off.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// process.env by another name (the domain block repeats these, since a later block's options replace an earlier one's).
const ENV_IMPORTS = ['process', 'node:process'].map((name) => ({
  name,
  importNames: ['env'],
  message: 'Only src/config.ts reads the environment.',
}));

export default tseslint.config(
  { ignores: ['dist/**', '**/dist/**', '**/node_modules/**', 'src/db/migrations/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'preserve-caught-error': 'off',
      // `import { type X } from` stays a run-time import once Node strips the types (`import {} from` still loads
      // the module); `import type` is erased. test/code/import-cycles.unit.test.ts counts on that.
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
  // Providers own their platform: outside the provider modules (and the database, config, dashboard,
  // sandbox and tests), code reads a platform's module through providers/registry.ts and never names it.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/providers/**', 'src/db/**', 'src/config.ts', 'src/dashboard/**', 'src/sandbox/**', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['chatapp_official', 'chatapp_unofficial'].flatMap((name) =>
          [`Literal[value='${name}']`, `TemplateLiteral[expressions.length=0] > TemplateElement[value.cooked='${name}']`].map(
            (selector) => ({
              selector,
              message: `a platform name outside src/providers/: read the platform's provider module (providers/registry.ts) instead`,
            }),
          ),
        ),
      ],
    },
  },
  // The provider webhook paths are the spec's (/v1/providers/{platform}/webhook); the route file only
  // mounts them and hands each delivery to its platform's inbound half. The OpenAPI examples are data.
  {
    files: ['src/http/providers/webhooks.ts', 'src/http/examples.ts', 'src/http/error-examples.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  // House rules (docs/ARCHITECTURE.md). Kept in blocks of their own; each block names its files.
  {
    // Only src/config.ts reads the environment. Outside src/, the test harness (test/harness.ts, test/process/service.ts:
    // the database server of the PostgreSQL pass, the child services' PATH and HOME), the Redis of the
    // rate-limit tests (test/services.ts), the run's shared browser (test/browser.ts), the fuzzer's two knobs (test/fuzz/contract.test.ts) and scripts/ and bench/ (command-line tools) read it too.
    files: ['src/**', 'test/**'],
    ignores: [
      'src/config.ts',
      'test/harness.ts',
      'test/services.ts',
      'test/browser.ts',
      'test/process/service.ts',
      'test/fuzz/contract.test.ts',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/config.ts reads process.env: take the setting from the config.' },
      ],
      'no-restricted-imports': ['error', { paths: ENV_IMPORTS }],
    },
  },
  {
    // The dashboard takes its wire types from the server's response and request schemas in src/http/, as
    // types only (erased by the build): a value import would put server code in the browser bundle.
    files: ['src/dashboard/**'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ENV_IMPORTS,
          patterns: [
            {
              group: ['**/http/**', '**/http'],
              allowTypeImports: true,
              message: 'The dashboard imports only types from src/http/ (import type): a value would bundle server code.',
            },
          ],
        },
      ],
    },
  },
  {
    // The domain speaks no HTTP: nothing under src/domain/ imports from src/http/.
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ENV_IMPORTS,
          patterns: [
            {
              group: ['**/http/**', '**/http'],
              message: 'The domain never imports from src/http/: return rows or a typed refusal and let the route present them.',
            },
          ],
        },
      ],
    },
  },
  {
    // The database and the helpers sit below the domain: nothing under src/db/ or src/lib/ imports from src/domain/ or src/http/.
    files: ['src/db/**', 'src/lib/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ENV_IMPORTS,
          patterns: [
            {
              group: ['**/domain/**', '**/domain', '**/http/**', '**/http'],
              message: 'src/db/ and src/lib/ sit below the domain and HTTP: return a typed result and let the caller refuse it.',
            },
          ],
        },
      ],
    },
  },
);
