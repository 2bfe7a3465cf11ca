import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'coverage', 'dist'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The pages' own scripts run in browsers.
    files: ['src/web/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { document: 'readonly', navigator: 'readonly', fetch: 'readonly', setTimeout: 'readonly', setInterval: 'readonly', location: 'readonly', DOMParser: 'readonly' },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Closed unions (payout outcomes, verdicts, not-sent proofs, statuses) are checked closed: a switch over one
    // names every member, so adding one fails lint until each switch handles it; a default never stands in for a
    // member. The rule needs the types, so it reads the TypeScript project (the sources only: lint time).
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, allowDefaultCaseForExhaustiveSwitch: false, requireDefaultForNonUnion: false },
      ],
    },
  },
);
