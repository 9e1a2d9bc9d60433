import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const noSurfaces = { group: ['**/surfaces/**'], message: 'core layers must not import surfaces' };

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.tools/**',
      'test/fixtures/generated/**',
      'bench/results/**',
      '.cmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
    },
  },
  // The layer rule: the core (everything in src/ outside surfaces/) never reaches into a surface; the runtime sees
  // only HostBindings; the broker knows no policy, client, runtime or task.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/surfaces/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noSurfaces] }] },
  },
  {
    files: ['src/runtime/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noSurfaces,
            { group: ['**/broker/**', '**/client/**'], message: 'the runtime sees only HostBindings, never broker/ or client/' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/broker/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noSurfaces,
            {
              group: [
                '**/policy/**',
                '**/client/**',
                '**/runtime/**',
                '**/tasks/**',
                '**/codegen/**',
                '**/config/**',
                '**/elicitation/pipeline*',
                '**/mcpx*',
              ],
              message: 'the broker imports only its own types, errors and answer validation',
            },
          ],
        },
      ],
    },
  },
  // Surfaces do not import each other, except that the CLI may host the daemon, which serves the REST app.
  {
    files: ['src/surfaces/http/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/cli/**', '**/daemon/**'], message: 'the REST app imports no other surface' }] },
      ],
    },
  },
  {
    files: ['src/surfaces/plugin/**', 'src/surfaces/backend/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/cli/**', '**/http/**', '**/mcp-server/**'],
              message: 'the plugin and the question backends reach questions through surfaces/backend and the daemon client only',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/surfaces/daemon/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/cli/**'], message: 'the daemon imports no CLI code' }] }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
      },
    },
  },
  {
    // The web inbox runs in a browser.
    files: ['src/surfaces/http/web/ui/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'document',
          'location',
          'history',
          'fetch',
          'addEventListener',
          'EventSource',
          'URL',
          'URLSearchParams',
          'setInterval',
          'setTimeout',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  // Layout is prettier's (npm run lint runs prettier --check); eslint keeps to correctness.
  prettier,
);
