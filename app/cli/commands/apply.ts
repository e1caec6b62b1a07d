/**
 * `kreconcile apply plan.json`: carries out exactly the actions of a saved plan through the
 * executor, for pipelines without an operator. Refuses, writing nothing, when any object the plan
 * writes moved since the plan was made; each write is guarded too, for races after the check.
 */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import {
  showClusterError,
  showRef,
  type ClusterReader,
  type ClusterWriter,
  type Action,
  type Discovery,
  type ObjectRef,
  type Plan,
} from '../../../core/internal.js';
import { executePlan, type Execution } from '../../executor/execute.js';
import { clusterFailure, inputError, usageError, type CliError } from '../cli-error.js';
import { contextOption, kubeconfigOption, reportErrors, type CliCommand, type CommandContext } from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_GUARD_DENIED, EXIT_OK } from '../exit-codes.js';
import { digestMismatches, missingGuard, savedVerdicts } from '../guard/apply-guard.js';
import { readApprovals } from '../guard/approvals.js';
import { anyDenied, applyApproveHint, guardReport } from '../guard/check.js';
import { readGuard, type GuardFile } from '../guard/read-guard.js';
import type { ClusterTarget } from '../io.js';
import { recordInventory } from '../live/inventory-record.js';
import { clusterName } from '../planning/cluster-view.js';
import { styleFor } from '../style.js';
import { fieldOwnerLines } from '../render/field-owners.js';
import { actionLines, impactLines } from '../render/text.js';
import type { SavedApplicationV1, SavedPlanV1 } from '../saved-plan/format.js';
import { guardsOf, movedSincePlanned, scopeMismatches } from '../saved-plan/guards.js';
import { readSavedPlan } from '../saved-plan/read.js';
import { plannedOf, savedApplicationObject } from '../saved-plan/replay.js';
import { savedPlanSchemaErrors } from '../saved-plan/schema-check.js';
import { approvalsFileOption, approveOption } from '../guard/approvals.js';
import { defined } from '../../../core/json/defined.js';

/** The flags as commander gives them. */
export type ApplyFlags = {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly guard?: string;
  readonly approve: ReadonlyArray<string>;
  readonly approvalsFile?: string;
};

/** The guard `apply` evaluates again, and the approvals it takes (from flags only). */
type Gate = { readonly guard: GuardFile; readonly approvals: ReadonlySet<string> };

const EXAMPLES = `
Examples:
  kreconcile plan -f app.yaml --context prod --out plan.json
  kreconcile show plan.json
  kreconcile apply plan.json --context prod

The cluster must be the one the plan was made against: every object the plan writes must still
have the resourceVersion it had then (and objects it creates must still be absent). Finalizers are
left to the operator: apply never adds one (without an operator it would block deleting the Application).

With --guard, the guard policy's rules are evaluated again on the plan's actions; a denied plan is
not applied at all and apply exits 3, unless --approve or --approvals-file names its digest (taken
from a place the change under review cannot write: docs/ci.md, "Approvals"). A plan made with
plan --guard is applied only with the same rules: each Application's digest covers its actions,
the guard's rules and their verdict, and a plan whose digest does not match is refused.

${EXIT_CODES_HELP}
  3  with --guard: the guard policy denies the plan; nothing was applied`;

type Cluster = ClusterReader & ClusterWriter & Discovery;

/** The actions that write to the cluster: an Application with any of them has its inventory kept. */
const WRITES = new Set(['create', 'patch', 'recreate', 'delete']);

const replan = (path: string): string => `plan again (kreconcile plan … --out ${path}) and apply the new plan`;

const connect = async (context: CommandContext, target: ClusterTarget): Promise<E.Either<CliError, Cluster>> => {
  try {
    return E.right(await context.io.connectWritable(target));
  } catch (error) {
    return E.left(
      clusterFailure(
        `cannot connect to the ${clusterName(target)}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }
};

type Totals = {
  readonly created: number;
  readonly patched: number;
  readonly deleted: number;
  readonly recreated: number;
};
type Applied = Totals & { readonly lines: ReadonlyArray<string>; readonly error?: CliError };

/** The objects a saved plan writes and keeps (recorded before the writes), and those it deletes. */
const writtenRefs = (saved: SavedApplicationV1): ReadonlyArray<ObjectRef> =>
  saved.actions.flatMap((action) =>
    action.type === 'create' || action.type === 'recreate' || action.type === 'patch' ? [action.resource] : [],
  );

const nothingApplied = (error: CliError): Applied => ({
  lines: [],
  created: 0,
  patched: 0,
  deleted: 0,
  recreated: 0,
  error: { ...error, message: `${error.message}; nothing of this Application was applied` },
});

/** The create of the Application's own Namespace, when the plan makes it: the inventory lives there. */
const ownNamespaceCreate = (plan: Plan, namespace: string): Action | undefined =>
  plan.actions.find(
    (action) =>
      action.type === 'create' &&
      action.ref.apiVersion === 'v1' &&
      action.ref.kind === 'Namespace' &&
      action.ref.name === namespace,
  );

/**
 * Carries out a saved Application's plan with its inventory kept (docs/decisions/0028): recorded
 * before the writes, deletes dropped after. A plan that creates the Application's own Namespace
 * creates it first (the record cannot exist before it). Errors: the record cannot be written
 * (then nothing else of the plan is written).
 */
const carriedOut = async (
  cluster: Cluster,
  saved: SavedApplicationV1,
  plan: Plan,
): Promise<E.Either<CliError, { readonly execution: Execution; readonly after?: CliError }>> => {
  const owner = { namespace: saved.application.namespace ?? 'default', name: saved.application.name };
  const run = (actions: ReadonlyArray<Action>) =>
    executePlan({
      plan: { ...plan, actions },
      application: savedApplicationObject(saved),
      cluster,
      guards: guardsOf(saved),
    });
  if (!saved.actions.some((action) => WRITES.has(action.type))) return E.right({ execution: await run(plan.actions) });
  const first = ownNamespaceCreate(plan, owner.namespace);
  const before = first === undefined ? undefined : await run([first]);
  if (before?.failure !== undefined) return E.right({ execution: before });
  const ahead = await recordInventory(cluster, owner, { added: writtenRefs(saved), removed: [] });
  if (E.isLeft(ahead))
    return before === undefined
      ? E.left(ahead.left)
      : E.right({
          execution: before,
          after: { ...ahead.left, message: `${ahead.left.message}; only its Namespace was created` },
        });
  const rest = await run(plan.actions.filter((action) => action !== first));
  const execution = { ...rest, done: [...(before?.done ?? []), ...rest.done] };
  const deleted = execution.done.flatMap(({ action }) => (action.type === 'delete' ? [action.ref] : []));
  // After the writes: what was deleted leaves the record (a failure here leaves more recorded, never less).
  const after = deleted.length > 0 ? await recordInventory(cluster, owner, { added: [], removed: deleted }) : undefined;
  return E.right({ execution, ...(after !== undefined && E.isLeft(after) ? { after: after.left } : {}) });
};

const applyOne = async (
  cluster: Cluster,
  saved: SavedApplicationV1,
  path: string,
  context: CommandContext,
): Promise<Applied> => {
  const [planned] = plannedOf([saved]);
  if (planned === undefined) return nothingApplied(clusterFailure('the saved Application could not be read back'));
  const carried = await carriedOut(cluster, saved, planned.plan);
  if (E.isLeft(carried)) return nothingApplied(carried.left);
  const { execution, after } = carried.right;
  const style = styleFor(context.io);
  // What each applied action does at run time, as the plan said when it was made (its own action objects).
  const impacts = new Map(planned.plan.actions.map((action, index) => [action, planned.impacts?.[index] ?? []]));
  const count = (type: string): number => execution.done.filter(({ action }) => action.type === type).length;
  const subject = `Application ${saved.application.namespace ?? 'default'}/${saved.application.name}`;
  const failure = execution.failure;
  const raced =
    failure !== undefined &&
    (failure.error._tag === 'Conflict' ||
      (failure.guardedPatch && ['Invalid', 'Internal'].includes(failure.error._tag)));
  return {
    lines: [
      style.bold(subject),
      ...execution.done.flatMap(({ action }) => [
        ...actionLines(action, style),
        ...impactLines(impacts.get(action) ?? []),
      ]),
      ...fieldOwnerLines(planned, style),
    ],
    created: count('create'),
    patched: count('patch'),
    deleted: count('delete'),
    recreated: count('recreate'),
    ...(failure === undefined
      ? after !== undefined
        ? { error: after }
        : {}
      : {
          error: clusterFailure(
            `${subject}: ${showRef(failure.action.ref)}: ${raced ? 'changed while the plan was applied' : 'the write failed'} (${showClusterError(failure.error)}); ${execution.done.length} of ${saved.actions.length} actions were applied: ${replan(path)}`,
          ),
        }),
  };
};

/**
 * Fails the command, one error per line, when a check before applying found anything: the plan is
 * applied whole or not at all, so a single finding stops it. Returns whether it failed.
 */
const refusedFor = (
  context: CommandContext,
  findings: ReadonlyArray<string>,
  reason: string,
  path: string,
): boolean => {
  if (findings.length === 0) return false;
  fail(
    context,
    findings.map((line) =>
      inputError(`${reason}, nothing was applied: ${line}: ${replan(path)}`, { location: { file: path } }),
    ),
  );
  return true;
};

const applyAll = async (
  context: CommandContext,
  cluster: Cluster,
  saved: SavedPlanV1,
  path: string,
  gate: Gate | undefined,
): Promise<void> => {
  const { io } = context;
  const mismatched = await scopeMismatches(cluster, saved);
  if (E.isLeft(mismatched)) return fail(context, [mismatched.left]);
  if (refusedFor(context, mismatched.right, "the plan's scopes disagree with the cluster's", path)) return;
  if (gate !== undefined) {
    const verdicts = savedVerdicts(saved, gate.guard, gate.approvals);
    for (const line of guardReport(verdicts, applyApproveHint(path, gate.guard.file))) io.stderr.write(`${line}\n`);
    if (anyDenied(verdicts)) return context.exit(EXIT_GUARD_DENIED);
  }
  const moved = await movedSincePlanned(cluster, saved);
  if (E.isLeft(moved)) return fail(context, [moved.left]);
  if (refusedFor(context, moved.right, 'the cluster moved since the plan was made', path)) return;
  let totals: Totals = { created: 0, patched: 0, deleted: 0, recreated: 0 };
  for (const application of saved.applications) {
    const applied = await applyOne(cluster, application, path, context);
    io.stdout.write(`${applied.lines.join('\n')}\n`);
    totals = {
      created: totals.created + applied.created,
      patched: totals.patched + applied.patched,
      deleted: totals.deleted + applied.deleted,
      recreated: totals.recreated + applied.recreated,
    };
    if (applied.error !== undefined) return fail(context, [applied.error]);
  }
  io.stdout.write(
    `\nApplied: ${totals.created} created, ${totals.patched} patched, ${totals.deleted} deleted${totals.recreated > 0 ? `, ${totals.recreated} recreated` : ''}.\n`,
  );
  context.exit(EXIT_OK);
};

const fail = (context: CommandContext, errors: ReadonlyArray<CliError>): void => {
  reportErrors(context.io, errors);
  context.exit(EXIT_ERROR);
};

const versionError = (saved: SavedPlanV1, version: string, path: string): ReadonlyArray<CliError> =>
  saved.metadata.kreconcileVersion === version
    ? []
    : [
        inputError(
          `made by kreconcile ${saved.metadata.kreconcileVersion}, this is ${version}: a plan is applied by the version that made it; ${replan(path)}`,
          { location: { file: path } },
        ),
      ];

/** The flags decoded: the cluster they name. */
export type ApplyRequest = ApplyFlags & { readonly target: ClusterTarget };

/** A pure decoding of the flags, tested on its own (issue 40 item 2). */
export const decodeApplyFlags = (flags: ApplyFlags): E.Either<ReadonlyArray<CliError>, ApplyRequest> =>
  flags.guard === undefined && (flags.approve.length > 0 || flags.approvalsFile !== undefined)
    ? E.left([usageError('--approve and --approvals-file approve what --guard denies: give --guard')])
    : E.right({ ...flags, target: defined({ kubeconfigPath: flags.kubeconfig, context: flags.context }) });

/** The saved plan, checked to be this version's and valid before anything connects. */
const readCheckedPlan = async (
  context: CommandContext,
  path: string,
): Promise<E.Either<ReadonlyArray<CliError>, SavedPlanV1>> => {
  const saved = await readSavedPlan(context.io, path);
  if (E.isLeft(saved)) return saved;
  const wrongVersion = versionError(saved.right, context.io.version, path);
  if (wrongVersion.length > 0) return E.left(wrongVersion);
  // Before connecting: a plan with a value the API server refuses must not be half-applied.
  const invalid = savedPlanSchemaErrors(context.io, saved.right);
  return invalid.length > 0 ? E.left(invalid) : saved;
};

const execute = async (context: CommandContext, path: string, flags: ApplyFlags): Promise<void> => {
  const request = decodeApplyFlags(flags);
  if (E.isLeft(request)) return fail(context, request.left);
  const options = request.right;
  const saved = await readCheckedPlan(context, path);
  if (E.isLeft(saved)) return fail(context, saved.left);
  const guard = options.guard === undefined ? E.right(undefined) : await readGuard(context.io, options.guard);
  if (E.isLeft(guard)) return fail(context, guard.left);
  const approvals = await readApprovals(context.io, options);
  if (E.isLeft(approvals)) return fail(context, approvals.left);
  // The rules were checked against the schemas by plan --guard: the digest check proves they are the same.
  const unguarded = missingGuard(saved.right, guard.right, path);
  if (unguarded.length > 0) return fail(context, unguarded);
  const edited = digestMismatches(saved.right, guard.right, path);
  if (edited.length > 0) return fail(context, edited);
  const cluster = await connect(context, options.target);
  if (E.isLeft(cluster)) return fail(context, [cluster.left]);
  const gate = guard.right === undefined ? undefined : { guard: guard.right, approvals: approvals.right };
  return applyAll(context, cluster.right, saved.right, path, gate);
};

export const applyCommand: CliCommand = {
  name: 'apply',
  create: (context) =>
    new Command('apply')
      .summary('carry out a saved plan (kreconcile plan --out) against the cluster, exactly')
      .description(
        'Carries out exactly the actions of a saved plan: creates, patches (observed fields, guarded by the resourceVersion the plan saw) and deletes (with a resourceVersion precondition). Refuses, writing nothing, when any object the plan writes changed since the plan was made.',
      )
      .argument('<plan>', 'the saved plan file (- reads stdin)')
      .addOption(kubeconfigOption(' (get, create, patch and delete on the objects the plan writes)'))
      .addOption(contextOption())
      .addOption(
        new Option(
          '--guard <file>',
          'guard policy (as plan --guard): evaluate its rules again and apply nothing (exit 3) when it denies the plan',
        ),
      )
      .addOption(approveOption())
      .addOption(approvalsFileOption())
      .addHelpText('after', EXAMPLES)
      .action(async (path: string, options: ApplyFlags) => execute(context, path, options)),
};
