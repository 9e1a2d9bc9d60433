import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tools/**', 'test/fixtures/generated/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    // The layer rule: the core never reaches into a surface.
    files: ['src/broker/**', 'src/client/**', 'src/runtime/**', 'src/codegen/**', 'src/types.ts', 'src/errors.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/surfaces/**'], message: 'core layers must not import surfaces' }] }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
  {
    // The web inbox runs in a browser.
    files: ['src/surfaces/http/web/ui/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['document', 'location', 'history', 'fetch', 'addEventListener', 'EventSource', 'URL', 'URLSearchParams', 'setInterval', 'setTimeout'].map((name) => [name, 'readonly']),
      ),
    },
  },
);
