// Lint = the dependency rules of docs/architecture.md, enforced rather than hoped for:
// core is pure (fp-ts, io-ts, immer and itself; no process/console/timers/clock/randomness),
// only adapters/kubernetes touches @kubernetes/client-node, only app/cli touches process.
// Import cycles are checked by tools/lint/no-cycles.ts (part of `npm run lint`).
// Core and app/reconcile keep no module-level state (tools/lint/no-module-state.js), and no function
// in core, app or adapters is longer than 50 lines (issues 18 and 40).
import tseslint from 'typescript-eslint';
import moduleState from './tools/lint/no-module-state.js';
import { preferDefined } from './tools/lint/prefer-defined.js';

const kreconcile = { rules: { ...moduleState.rules, 'prefer-defined': preferDefined } };

const impureGlobals = [
  'process',
  'console',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'queueMicrotask',
  'fetch',
  'performance',
  'crypto',
  'require',
].map((name) => ({ name, message: 'core is pure: take it as an argument or move this to app/ or adapters/.' }));

const clientNodeOnlyInKubernetesAdapter = {
  group: ['@kubernetes/client-node', '@kubernetes/client-node/*'],
  message: 'only adapters/kubernetes may import @kubernetes/client-node.',
};

const typeCheckedFiles = ['core/**/*.ts', 'app/**/*.ts', 'adapters/**/*.ts', 'tools/**/*.ts'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'bench/results/**'] },
  {
    files: ['**/*.ts'],
    // Type-aware: the rules below read the types the compiler infers (tsconfig.json's program).
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-restricted-imports': ['error', { patterns: [clientNodeOnlyInKubernetesAdapter] }],
      // Rules that catch real defects, not style: a cast the types already guarantee hides the next
      // real change of type; an unawaited or misused promise loses its error; a switch over a union
      // that misses a member silently does nothing for it.
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Comments wrap at 120 like the code Prettier formats (Prettier leaves comments alone); code lines are
      // Prettier's, so only comments are measured here.
      'max-len': ['error', { code: 100_000, comments: 120, ignoreUrls: true, ignorePattern: '^\\s*(\\*|//) \\|' }],
    },
  },
  // typescript-eslint's recommendedTypeChecked preset (issue 40 item 5) for the shipped code and its tools.
  // test/ and bench/ are left out for now: the preset finds 478 there (467 in test/, mostly no-unsafe-* on
  // parsed responses, require-await and unbound-method of expect(spy.method)), a change of its own.
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: typeCheckedFiles })),
  {
    files: typeCheckedFiles,
    rules: {
      // `{ dropped: _dropped, ...rest }` omits a field; a leading underscore names a value kept unused on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' },
      ],
      // A check such as `isServiceAccountName(value: unknown): value is string` narrows its false branch to
      // `never` though the value is still the string the user wrote, and the message must show it.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNever: true }],
    },
  },
  {
    // Temporary (issue 40 item 5): core/plan is being changed on another branch, so its recommendedTypeChecked
    // findings stay untouched here. findings left: 6, to be fixed after the branches merge (no-unused-vars 4,
    // no-base-to-string 2).
    files: [
      'core/plan/drift-policy.ts', // no-unused-vars 1
      'core/plan/field-fights.ts', // no-unused-vars 1
      'core/plan/plan.ts', // no-unused-vars 1
      'core/plan/server-side-apply.ts', // no-unused-vars 1
      'core/plan/size-check.ts', // no-base-to-string 2
    ],
    rules: {
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  {
    // Temporary (issue 40 item 5): adapters/memory is being changed on another branch, so its recommendedTypeChecked
    // findings stay untouched here. findings left: 25, to be fixed after the branches merge (no-base-to-string 9,
    // no-unused-vars 5, unbound-method 4, require-await 3, no-unsafe-argument 2, no-unsafe-assignment 1,
    // no-unsafe-call 1).
    files: [
      'adapters/memory/controllers/pod-controllers.ts', // no-base-to-string 1, no-unsafe-argument 1
      'adapters/memory/controllers/storage-protection.ts', // no-base-to-string 1
      'adapters/memory/defaulting/core-kinds.ts', // no-base-to-string 1
      'adapters/memory/field-manager/kind-scope.ts', // no-unused-vars 1
      'adapters/memory/field-manager/managed-fields.ts', // no-base-to-string 2
      'adapters/memory/field-manager/typed-fields.ts', // no-unused-vars 1
      'adapters/memory/hooks/service-hooks.ts', // no-unused-vars 1
      'adapters/memory/http/openapi-documents.ts', // no-unused-vars 1
      'adapters/memory/http/printers/core-kinds.ts', // no-unsafe-assignment 1
      'adapters/memory/http/printers/others.ts', // no-base-to-string 1, no-unsafe-argument 1
      'adapters/memory/http/route-table.ts', // require-await 2
      'adapters/memory/http/scale-subresource.ts', // no-base-to-string 1
      'adapters/memory/json/json-patch.ts', // no-base-to-string 1
      'adapters/memory/memory-cluster.ts', // unbound-method 4, require-await 1
      'adapters/memory/typing/kind-validation.ts', // no-base-to-string 1
      'adapters/memory/verbs/status-rules.ts', // no-unused-vars 1
      'adapters/memory/watch/watch-hub.ts', // no-unsafe-call 1
    ],
    rules: {
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unused-vars': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Temporary (issue 40 item 5): app/testing is being changed on another branch, so its recommendedTypeChecked
    // findings stay untouched here. findings left: 22, to be fixed after the branches merge (no-unsafe-return 10,
    // no-unused-vars 3, require-await 3, no-base-to-string 2, unbound-method 2, no-unsafe-call 1,
    // prefer-promise-reject-errors 1).
    files: [
      'app/testing/activity.ts', // no-unsafe-return 1
      'app/testing/check-controller.ts', // no-unused-vars 3
      'app/testing/check-convergence.ts', // no-base-to-string 2, no-unsafe-return 1, require-await 1, unbound-method 1
      'app/testing/check-in-process.ts', // require-await 1, unbound-method 1
      'app/testing/in-process-effects.ts', // no-unsafe-return 1
      'app/testing/request-scheduler.ts', // no-unsafe-return 1, no-unsafe-call 1
      'app/testing/virtual-time.ts', // no-unsafe-return 3
      'app/testing/virtual-timer-promises.ts', // no-unsafe-return 3, prefer-promise-reject-errors 1, require-await 1
    ],
    rules: {
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unused-vars': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Temporary (issue 40 item 5): app/runtime is being changed on another branch, so its recommendedTypeChecked
    // findings stay untouched here. findings left: 2, to be fixed after the branches merge (no-unused-vars 1,
    // require-await 1).
    files: [
      'app/runtime/primary.ts', // no-unused-vars 1
      'app/runtime/sharding/sharding.ts', // require-await 1
    ],
    rules: {
      '@typescript-eslint/no-unused-vars': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Generated from the Go types (tools/go-types): its header names its source in full, as written.
    files: ['**/*.generated.ts'],
    rules: { 'max-len': 'off' },
  },
  {
    files: ['core/**/*.ts'],
    ignores: ['core/**/*.arbitrary.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!(fp-ts|io-ts|immer)(/|$)|\\.{1,2}/)',
              message: 'core imports only fp-ts, io-ts, immer and itself.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', ...impureGlobals],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'core is pure: time is an argument (`now`).' },
        { object: 'Math', property: 'random', message: 'core is pure: randomness is an argument.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'core is pure: time is an argument (`now`).',
        },
      ],
    },
  },
  {
    // A memo is a value its caller owns: no module-level `let`, no module-level collection that is written.
    files: ['core/**/*.ts', 'app/reconcile/**/*.ts'],
    plugins: { kreconcile },
    rules: { 'kreconcile/no-module-state': 'error' },
  },
  {
    // One way to build an object with optional fields: defined({ … }) (core/json/defined.ts, issue 40 item 5).
    files: ['core/**/*.ts', 'app/**/*.ts', 'adapters/**/*.ts', 'tools/**/*.ts'],
    plugins: { kreconcile },
    rules: { 'kreconcile/prefer-defined': 'error' },
  },
  {
    // Code a reader can follow: small functions in core, app and adapters alike (issue 40; arbitraries
    // are generators, not the API). A declarative table (a commander option list) may be excepted
    // where it stands, with an eslint-disable comment that says why.
    files: ['core/**/*.ts', 'app/**/*.ts', 'adapters/**/*.ts'],
    ignores: ['**/*.arbitrary.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 50, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Arbitraries live beside the codecs they generate (docs/architecture.md example 10); they may
    // use fast-check but are never imported by the core API (core/index.ts).
    files: ['core/**/*.arbitrary.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!(fp-ts|io-ts|immer|fast-check)(/|$)|\\.{1,2}/)',
              message: 'arbitraries import only fast-check and the core.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['adapters/**/*.ts'],
    ignores: ['adapters/kubernetes/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            clientNodeOnlyInKubernetesAdapter,
            { group: ['**/app/**', '../../app/*'], message: 'adapters do not import app/.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'only app/cli touches process.' }],
    },
  },
  {
    // The memory server's folders talk to each other through their index.ts (what a folder offers);
    // files inside a folder import each other directly; the root modules assemble the folders.
    files: ['adapters/memory/*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            clientNodeOnlyInKubernetesAdapter,
            { group: ['**/app/**', '../../app/*'], message: 'adapters do not import app/.' },
            {
              regex: '^\\.\\./[a-z-]+/(?!index\\.js$)',
              message: 'import another folder of adapters/memory through its index.js (export what you need there).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['adapters/kubernetes/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/app/**'], message: 'adapters do not import app/.' }] },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'only app/cli touches process.' }],
    },
  },
  {
    files: ['app/**/*.ts'],
    ignores: ['app/cli/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'only app/cli touches process: pass what you need in.' },
      ],
    },
  },
  {
    // Tests of controllers written with @kubernetes/client-node against the test kit's HTTP
    // endpoint do what the kit's users do; only files named *.client-node.test.ts may import it.
    files: ['test/**/*.client-node.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
