// One linter for the repository (STYLE "Tooling"): typescript-eslint on top of ESLint's recommended rules,
// Prettier for formatting, and import-boundary rules that hold the lines other projects' bugs crossed.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ['error', { patterns }];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '.bench-corpus/**', '**/.generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // child_process only in the shell tool (and the MCP stdio transport, which the SDK owns): STYLE "Shape".
    files: ['packages/toolport/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'packages/toolport/src/tools/shell/**', 'packages/toolport/src/mcp/**'],
    rules: {
      'no-restricted-imports': restrict([
        {
          group: ['node:child_process', 'child_process'],
          message: 'child_process belongs to the shell tool and the MCP stdio transport.',
        },
      ]),
    },
  },
  {
    // Outbound HTTP on a model's or a script's behalf only through net/ (NET-1: SSRF checks at connect time).
    files: ['packages/toolport/src/tools/**/*.ts', 'packages/toolport/src/custom-tools/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Use the NET-1 client (context.services.http or net/safe-fetch.ts).' },
      ],
    },
  },
  {
    // core/ imports nothing else of ours (STYLE "Shape of the repository").
    files: ['packages/toolport/src/core/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict([
        {
          regex: '^\\.\\./',
          message:
            'core/ imports nothing else of ours: define an interface in core and implement it outside.',
        },
        {
          group: ['node:child_process', 'child_process'],
          message: 'child_process belongs to the shell tool and the MCP stdio transport.',
        },
      ]),
    },
  },
  {
    // toolport/plugin stays light: no database, server, SDK or process code.
    files: ['packages/toolport/src/plugin/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { regex: '^\\.\\./(?!core/)', message: 'toolport/plugin may import only core/.' },
      ]),
    },
  },
  prettier,
);
