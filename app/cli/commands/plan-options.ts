/**
 * The flags `plan` and `fleet-plan` share, declared once (names, parsing, help), and what both do
 * with them: the rules between them and the time they plan at (a pure decoding), and the admin's
 * files they read (tenancy policy, field managers, guard, approvals, trusted CRDs). docs/cli.md
 * documents them under `plan`; `fleet-plan` takes them "as for plan".
 */
import { Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import {
  DEFAULT_KNOWN_MANAGERS,
  isResource,
  type JsonValue,
  type KnownManager,
  type Resource,
  type TenancyPolicy,
} from '../../../core/internal.js';
import { usageError, type CliError } from '../cli-error.js';
import {
  collect,
  contextOption,
  filenameOption,
  kubeconfigOption,
  namespaceOption,
  planOutputOption,
  READ_ONLY,
  recursiveOption,
} from '../command.js';
import { approvalsFileOption, approveOption, readApprovals } from '../guard/approvals.js';
import type { GuardFile } from '../guard/read-guard.js';
import { readCrdFlags } from '../input/schema-catalog.js';
import { STDIN } from '../input/source.js';
import type { ClusterTarget, CliIo } from '../io.js';
import { resolveNow } from '../now.js';
import { readAdminFiles } from '../policy/admin-files.js';
import { defined } from '../../../core/json/defined.js';

export type PlanOutput = 'text' | 'json' | 'yaml' | 'markdown';

/** The shared flags as commander gives them. */
export type SharedPlanFlags = {
  readonly filename: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly snapshot: ReadonlyArray<string>;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace: string;
  readonly output: PlanOutput;
  readonly exitCode?: boolean;
  readonly now?: string;
  readonly policy?: string;
  readonly fieldManagers?: string;
  readonly guard?: string;
  readonly crd: ReadonlyArray<string>;
  readonly approve: ReadonlyArray<string>;
  readonly approvalsFile?: string;
  readonly offline?: boolean;
};

/** The help of the flags whose meaning each command words its own way. */
export type SharedPlanHelp = {
  readonly filename: string;
  readonly snapshot: string;
  readonly exitCode: string;
  readonly guard: string;
  readonly offline: string;
};

/** The shared options, in the order `--help` lists them. */
export const sharedPlanOptions = (help: SharedPlanHelp): ReadonlyArray<Option> => [
  filenameOption(help.filename),
  recursiveOption(),
  new Option('--snapshot <file>', `${help.snapshot}; repeatable`).argParser(collect).default([], 'none'),
  kubeconfigOption(READ_ONLY),
  contextOption(),
  namespaceOption(),
  planOutputOption(),
  new Option('--exit-code', help.exitCode),
  new Option(
    '--policy <file>',
    "the admin's tenancy policy the operator runs with (kreconcile run --policy); default: each Application writes only to its own namespace",
  ),
  new Option(
    '--field-managers <file>',
    'field managers whose fields are left to them, added to the known ones (docs/field-owners.md); as kreconcile run --field-managers',
  ),
  new Option(
    '--crd <file|dir>',
    "the admin's CustomResourceDefinitions: the only CRDs that may say a kind's scope (CRDs in -f only add kinds nobody knows); repeatable",
  )
    .argParser(collect)
    .default([], 'none'),
  new Option('--guard <file>', help.guard),
  approveOption(),
  approvalsFileOption(),
  new Option('--offline', help.offline),
  new Option('--now <time>', 'RFC 3339 time the plans are computed at (condition times; default: now)'),
];

/** The shared flags decoded: when the plans are computed, and which cluster is read (none: a snapshot or nothing). */
export type SharedPlanRequest = { readonly now: string; readonly target?: ClusterTarget };

/**
 * Where to plan: a snapshot, the cluster of --kubeconfig/--context or of KUBECONFIG (as kubectl reads it), or nothing.
 */
export const targetOf = (
  flags: Pick<SharedPlanFlags, 'kubeconfig' | 'context' | 'snapshot' | 'offline'>,
  env: Readonly<Record<string, string | undefined>>,
): { readonly target?: ClusterTarget } => {
  if (flags.kubeconfig !== undefined || flags.context !== undefined)
    return {
      target: {
        ...defined({ kubeconfigPath: flags.kubeconfig, context: flags.context }),
      },
    };
  const fromEnv = env.KUBECONFIG ?? '';
  // kubectl reads KUBECONFIG when no --kubeconfig is given; a snapshot or --offline says otherwise.
  return fromEnv === '' || flags.snapshot.length > 0 || flags.offline === true ? {} : { target: {} }; // the client's own lookup reads KUBECONFIG, a list of files included
};

const clusterNamed = (flags: SharedPlanFlags): boolean => flags.kubeconfig !== undefined || flags.context !== undefined;

/** Flags that exclude or need each other, one line each. */
export const sharedUsageErrors = (flags: SharedPlanFlags): ReadonlyArray<CliError> => [
  ...(flags.snapshot.length > 0 && clusterNamed(flags)
    ? [
        usageError(
          '--snapshot and --kubeconfig/--context exclude each other: plan against a recording or the live cluster, not both',
        ),
      ]
    : []),
  ...(flags.guard === undefined && (flags.approve.length > 0 || flags.approvalsFile !== undefined)
    ? [usageError('--approve and --approvals-file approve what --guard denies: give --guard')]
    : []),
  ...(flags.offline === true && clusterNamed(flags)
    ? [usageError('--offline plans against an empty cluster: leave out --kubeconfig/--context, or --offline')]
    : []),
  ...([...flags.filename, ...flags.snapshot].filter((name) => name === STDIN).length > 1
    ? [usageError('standard input (-) can be read only once: name it in one -f or --snapshot')]
    : []),
];

/**
 * The shared flags decoded, or every usage problem. Pure but for `clock`, read only without `--now`.
 */
export const decodeSharedFlags = (
  flags: SharedPlanFlags,
  env: Readonly<Record<string, string | undefined>>,
  clock: () => Date,
): E.Either<ReadonlyArray<CliError>, SharedPlanRequest> => {
  const usage = sharedUsageErrors(flags);
  if (usage.length > 0) return E.left(usage);
  const now = resolveNow(flags.now, clock);
  return E.isLeft(now) ? E.left([now.left]) : E.right({ now: now.right, ...targetOf(flags, env) });
};

/** What the admin's files say (each absent when its flag is). */
export type AdminInputs = {
  readonly tenancy?: TenancyPolicy;
  /** `--field-managers` added to the known ones; absent without the flag (the planner's defaults). */
  readonly fieldManagers?: ReadonlyArray<KnownManager>;
  readonly guard?: GuardFile;
  readonly approvals: ReadonlySet<string>;
  /** `--crd` as read (for the schema catalog) and those that are resources (trusted to set scopes, issue 19). */
  readonly flagCrds: ReadonlyArray<JsonValue>;
  readonly trusted: ReadonlyArray<Resource>;
};

/** `--crd` as read, or its problems. */
const crdFlags =
  (io: CliIo, names: ReadonlyArray<string>): TE.TaskEither<ReadonlyArray<CliError>, ReadonlyArray<JsonValue>> =>
  async () => {
    const flagged = await readCrdFlags(io, names);
    return flagged.errors.length > 0 ? E.left(flagged.errors) : E.right(flagged.crds);
  };

/**
 * Reads `--policy`, `--field-managers`, `--guard`, the approvals and `--crd`; the first that fails, with its every
 * problem.
 */
export const readAdminInputs = (
  io: CliIo,
  flags: SharedPlanFlags,
): Promise<E.Either<ReadonlyArray<CliError>, AdminInputs>> =>
  pipe(
    readAdminFiles(io, flags),
    TE.bindTo('files'),
    TE.bind('approvals', () => () => readApprovals(io, flags)),
    TE.bind('flagCrds', () => crdFlags(io, flags.crd)),
    TE.map(({ files: { tenancy, managers, guard }, approvals, flagCrds }) => ({
      ...defined({ tenancy }),
      ...(managers === undefined ? {} : { fieldManagers: [...DEFAULT_KNOWN_MANAGERS, ...managers] }),
      ...defined({ guard }),
      approvals,
      flagCrds,
      trusted: flagCrds.filter(isResource),
    })),
  )();
