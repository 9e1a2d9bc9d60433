import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * The layer rule's restrictions: a relative import whose specifier matches `regex` is refused, written once for
 * both rules (no-restricted-imports sees static imports and re-exports, no-restricted-syntax sees `import()` with a
 * literal source). \x2F stands for a slash, which an esquery regex may not contain.
 */
const restriction = (folders, message) => ({ regex: `^\\.\\.?\\x2F(.*\\x2F)?${folders}`, message });
const noSurfaces = restriction('surfaces\\x2F', 'core layers must not import surfaces');
// The doors: from outside broker/ and client/, only their index.ts (or light.ts: what a warm CLI call needs, light).
const throughDoors = restriction(
  '(broker|client)\\x2F(?!(index|light)\\.js$)',
  'import broker/ and client/ only through their doors, index.ts or light.ts (add the name there)',
);

/** Both rules for a set of restrictions (a later config object replaces an earlier one's rule: list them all). */
function layer(...restrictions) {
  return {
    'no-restricted-imports': ['error', { patterns: restrictions }],
    'no-restricted-syntax': [
      'error',
      ...restrictions.map(({ regex, message }) => ({ selector: `ImportExpression[source.value=/${regex}/]`, message })),
    ],
  };
}

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
  // The layer rule, for static imports and import() alike: the core (everything in src/ outside surfaces/) never
  // reaches into a surface; the runtime sees only HostBindings; the broker knows no policy, client, runtime or task;
  // nothing outside broker/ and client/ passes their door. docs/architecture.md draws the floors.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/surfaces/**', 'src/broker/**', 'src/client/**'],
    rules: layer(noSurfaces, throughDoors),
  },
  {
    // The package's root entry re-exports the client's MCP shapes whole (export type *), which a door cannot.
    files: ['src/index.ts'],
    rules: layer(noSurfaces),
  },
  {
    files: ['src/client/**'],
    rules: layer(noSurfaces),
  },
  {
    files: ['src/runtime/**'],
    rules: layer(noSurfaces, restriction('(broker|client)\\x2F', 'the runtime sees only HostBindings, never broker/ or client/')),
  },
  {
    files: ['src/broker/**'],
    rules: layer(
      noSurfaces,
      restriction(
        '((policy|client|runtime|tasks|codegen|config|pipeline)\\x2F|mcpx)',
        'the broker imports only its own types, errors and answer validation',
      ),
    ),
  },
  // Surfaces do not import each other, except that the CLI may host the daemon (which serves the REST app) and
  // `mcpx serve`; every surface reaches broker/ and client/ through their doors.
  {
    files: ['src/surfaces/**/*.ts'],
    rules: layer(throughDoors),
  },
  {
    files: ['src/surfaces/http/**/*.ts'],
    rules: layer(throughDoors, restriction('(cli|daemon)\\x2F', 'the REST app imports no other surface')),
  },
  {
    files: ['src/surfaces/mcp-server/**'],
    rules: layer(throughDoors, restriction('(cli|daemon|http|plugin|backend)\\x2F', 'mcpx serve imports no other surface')),
  },
  {
    files: ['src/surfaces/plugin/**', 'src/surfaces/backend/**'],
    rules: layer(
      throughDoors,
      restriction(
        '(cli|http|mcp-server)\\x2F',
        'the plugin and the question backends reach questions through surfaces/backend and the daemon client only',
      ),
    ),
  },
  {
    files: ['src/surfaces/daemon/**'],
    rules: layer(throughDoors, restriction('cli\\x2F', 'the daemon imports no CLI code')),
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
  // No src file over 400 lines (every line, as `wc -l` counts them) and no function over 150: past either, split it
  // into small named parts (as createBroker and createTaskRunner were).
  {
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: false, skipComments: false }],
    },
  },
  // Layout is prettier's (npm run lint runs prettier --check); eslint keeps to correctness.
  prettier,
);
