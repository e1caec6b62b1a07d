/**
 * The flags of `kreconcile rbac` and `deploy` decoded (a pure function, tested on its own): who may do what, as
 * the admin chose it, or every usage problem at once. Reading the Application files of `-f` comes after, in
 * manifests.ts.
 */
import * as E from 'fp-ts/lib/Either.js';
import { isServiceAccountName } from '../../../core/internal.js';
import { defined } from '../../../core/json/defined.js';
import type { ChildKind } from '../../manifests/rbac.js';
import { MAX_SHARDS } from '../../runtime/sharding/sharding.js';
import { usageError, type CliError } from '../cli-error.js';

export type RbacFormat = 'yaml' | 'json';

/** The flags `rbac` and `deploy` share, as commander gives them. */
export type RbacFlags = {
  readonly namespace: string;
  readonly filename: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly kindsFromApplications?: boolean;
  readonly childKind: ReadonlyArray<string>;
  readonly tenantNamespace: ReadonlyArray<string>;
  readonly impersonation: 'off' | 'allowed' | 'required';
  readonly defaultServiceAccount?: string;
  readonly garbageCollectorUser: ReadonlyArray<string>;
  readonly output: RbacFormat;
  /** `rbac` only: the operator's shard count. */
  readonly shards?: string;
};

/** The admin's choice, decoded. */
export type RbacRequest = {
  readonly namespace: string;
  readonly impersonation: 'off' | 'allowed' | 'required';
  /** `--child-kind`, parsed. */
  readonly childKinds: ReadonlyArray<ChildKind>;
  /** `-f`, confirmed by `--kinds-from-applications`: files whose kinds are added. */
  readonly applicationFiles: ReadonlyArray<string>;
  readonly recursive: boolean;
  readonly tenantNamespaces: ReadonlyArray<string>;
  readonly defaultServiceAccount?: string;
  /** Absent: the garbage collector's known users. */
  readonly garbageCollectorUsers?: ReadonlyArray<string>;
  readonly shards?: number;
  readonly output: RbacFormat;
};

/** `apps/v1/Deployment` or `v1/ConfigMap`: the apiVersion, then the Kind. */
export const parseChildKind = (text: string): E.Either<string, ChildKind> => {
  const at = text.lastIndexOf('/');
  const apiVersion = text.slice(0, at);
  const kind = text.slice(at + 1);
  return at > 0 && /^[A-Z][A-Za-z0-9]*$/.test(kind) && /^([a-z0-9.-]+\/)?v[0-9][a-z0-9]*$/.test(apiVersion)
    ? E.right({ apiVersion, kind })
    : E.left(`--child-kind ${text}: expected apiVersion/Kind, e.g. apps/v1/Deployment or v1/ConfigMap`);
};

const shardCount = (shards: string): E.Either<string, number> => {
  const count = /^\d+$/.test(shards) ? Number(shards) : Number.NaN;
  return count >= 1 && count <= MAX_SHARDS
    ? E.right(count)
    : E.left(`--shards ${shards}: expected a whole number from 1 to ${MAX_SHARDS}`);
};

/** The rules between the flags, each broken one as its message. */
const combinationProblems = (flags: RbacFlags): ReadonlyArray<string> => [
  ...(flags.filename.length > 0 && flags.kindsFromApplications !== true
    ? [
        "-f derives the operator's rights from Application files, which tenants write: add --kinds-from-applications to confirm you reviewed them, or name kinds with --child-kind",
      ]
    : []),
  ...(flags.defaultServiceAccount !== undefined && !isServiceAccountName(flags.defaultServiceAccount)
    ? [`--default-service-account ${flags.defaultServiceAccount}: not a ServiceAccount name`]
    : []),
  ...(flags.impersonation === 'required' && (flags.childKind.length > 0 || flags.filename.length > 0)
    ? [
        "--impersonation required grants the operator no child rights: drop --child-kind and -f (the tenants' ServiceAccounts hold those rights)",
      ]
    : []),
];

export const decodeRbacFlags = (flags: RbacFlags): E.Either<ReadonlyArray<CliError>, RbacRequest> => {
  const kinds = flags.childKind.map(parseChildKind);
  const shards = flags.shards === undefined ? E.right(undefined) : shardCount(flags.shards);
  const problems = [
    ...combinationProblems(flags),
    ...kinds.flatMap((kind) => (E.isLeft(kind) ? [kind.left] : [])),
    ...(E.isLeft(shards) ? [shards.left] : []),
  ];
  if (problems.length > 0 || E.isLeft(shards)) return E.left(problems.map((problem) => usageError(problem)));
  return E.right({
    namespace: flags.namespace,
    impersonation: flags.impersonation,
    childKinds: kinds.flatMap((kind) => (E.isRight(kind) ? [kind.right] : [])),
    applicationFiles: flags.filename,
    recursive: flags.recursive === true,
    tenantNamespaces: flags.tenantNamespace,
    ...defined({ defaultServiceAccount: flags.defaultServiceAccount, shards: shards.right }),
    ...(flags.garbageCollectorUser.length === 0 ? {} : { garbageCollectorUsers: flags.garbageCollectorUser }),
    output: flags.output,
  });
};
