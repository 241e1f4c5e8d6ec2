// ESLint flat config: typescript-eslint's strict and stylistic sets, with the rules this codebase follows.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.cache/', 'cdktf.out/', '**/cdktf.out/', '**/.gen/', 'examples/starter/node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  ...tseslint.configs.stylistic,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      // `_`-prefixed names mark parameters an interface requires but an implementation ignores
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // a non-null assertion documents an invariant the compiler cannot see; each one is next to its reason
      '@typescript-eslint/no-non-null-assertion': 'off',
      // functions are readable steps: anything longer is split (issue 9)
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    // tests: `describe` bodies are long by nature, synthesized JSON is read loosely, and `any` reads it by key
    files: ['test/**/*.ts', 'test/**/*.js', 'bench/**/*.ts', 'examples/**/*.ts', 'scripts/**/*.js', 'image/**/*.js'],
    rules: {
      'max-lines-per-function': 'off',
      'no-console': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly', AbortSignal: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
