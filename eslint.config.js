// typescript-eslint with type-checked rules over src/, test/ and bench/ (issue 15).
// `npm run lint` must report nothing; .ci/run runs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-artifacts/**', 'site/**', 'content/**', 'docs/**', '.eleventy.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    // npm test runs the test files of a worker in one process (vitest.config.ts, `isolate:
    // false`): a module mock would not reach a module another file loaded first, and would
    // reach the files after it. Give the code its collaborator instead (an option, a server).
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='vi'][callee.property.name=/^(mock|doMock|unmock|doUnmock|hoisted)$/]",
          message: 'npm test shares modules between test files (isolate: false): pass the collaborator in (an option, a local server) instead of mocking a module.',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
