/**
 * From the plans of `kreconcile plan` to a saved plan: each write gets the guard it was computed
 * against; plans that cannot be guarded, or would store Secret values without consent, are refused.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  displayRedactor,
  jsonEqual,
  judgedDigest,
  refKey,
  refOf,
  scopeKey,
  scopeOf,
  showRef,
  type Action,
  type GuardPolicy,
  type Impact,
  type Resource,
  type ScopeTable,
} from '../../../core/internal.js';
import { inputError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { subjectOf } from '../input/applications.js';
import type { Planned } from '../planning/plan-applications.js';
import { applicationPlanV1, impactV1, plainActionV1, type ClusterBasis } from '../render/plan-document.js';
import { serialize } from '../render/serialize.js';
import {
  SAVED_PLAN_API_VERSION,
  SAVED_PLAN_KIND,
  type GuardV1,
  type SavedActionV1,
  type SavedApplicationV1,
  type SavedPlanV1,
} from './format.js';
import { defined } from '../../../core/json/defined.js';

export type SaveRequest = {
  readonly planned: ReadonlyArray<Planned>;
  /** Every live object the plans were computed against (the snapshot or the live read). */
  readonly live: ReadonlyArray<Resource>;
  readonly scopes: ScopeTable;
  readonly now: string;
  readonly cluster: ClusterBasis;
  readonly version: string;
  readonly allowSecretValues: boolean;
  /** The guard file the plan was checked against (`--guard`): `apply` re-evaluates its rules. */
  readonly guard?: { readonly file: string; readonly digest: string };
  /** The guard file's rules: each Application's digest covers their verdict (`judgedDigest`). */
  readonly policy?: GuardPolicy;
};

type Saved = E.Either<ReadonlyArray<string>, SavedActionV1 | undefined>;

const isSecret = (action: Action): boolean => action.ref.apiVersion === 'v1' && action.ref.kind === 'Secret';

const SECRET_FIELD = /^\/(data|stringData)(\/|$)/;

/** Whether the action would put Secret values into the file (a create body, or patch values under data). */
export const writesSecretValues = (action: Action): boolean => {
  if (!isSecret(action)) return false;
  if (action.type === 'create' || action.type === 'recreate')
    return action.body.data !== undefined || action.body.stringData !== undefined;
  return action.type === 'patch' && action.patch.some((op) => op.op !== 'remove' && SECRET_FIELD.test(op.path));
};

const guardOf = (action: Action, live: ReadonlyMap<string, Resource>): E.Either<string, GuardV1> => {
  const object = live.get(refKey(action.ref));
  if (action.type === 'create') return E.right({ absent: true });
  const resourceVersion = object?.metadata.resourceVersion;
  if (typeof resourceVersion !== 'string' || resourceVersion === '') {
    return E.left(
      `${showRef(action.ref)}: the live object has no metadata.resourceVersion to guard the ${action.type} (a hand-written snapshot?): plan against the live cluster or a kubectl get / kreconcile snapshot recording`,
    );
  }
  const uid = object?.metadata.uid;
  return E.right({ resourceVersion, ...(typeof uid === 'string' ? { uid } : {}) });
};

const SECRET_REFUSAL =
  'the plan writes Secret values, which a saved plan would hold in clear: pass --allow-secret-values to save them (then protect plan.json like the Secret), or apply through the operator';

/** One action as saved; `undefined` for finalizer bookkeeping, which is the operator's (see docs/cli.md). */
const savedAction = (
  action: Action,
  request: SaveRequest,
  live: ReadonlyMap<string, Resource>,
  printed: (action: Action) => Action,
): Saved => {
  // Saved as written (apply must send the real values); sensitive when the printed form masks something.
  const v1 = plainActionV1(action);
  const sensitive = writesSecretValues(action) || !jsonEqual(v1, plainActionV1(printed(action)));
  switch (v1.type) {
    case 'addFinalizer':
    case 'removeFinalizer':
      return E.right(undefined);
    case 'conflict':
    case 'forbidden':
    case 'wait':
    case 'skip':
      return E.right(v1);
    case 'create':
    case 'patch':
    case 'recreate':
    case 'delete': {
      if (!request.allowSecretValues && sensitive) return E.left([`${showRef(action.ref)}: ${SECRET_REFUSAL}`]);
      const guard = guardOf(action, live);
      return E.isLeft(guard) ? E.left([guard.left]) : E.right({ ...v1, guard: guard.right });
    }
  }
};

/** The saved action with what it does at run time, as the plan computed it (the live objects are not saved). */
const withImpact =
  (impacts: ReadonlyArray<Impact> | undefined) =>
  (saved: SavedActionV1 | undefined): SavedActionV1 | undefined =>
    saved === undefined || impacts === undefined || impacts.length === 0
      ? saved
      : { ...saved, impact: impacts.map(impactV1) };

const savedApplication = (
  planned: Planned,
  request: SaveRequest,
  live: ReadonlyMap<string, Resource>,
): E.Either<ReadonlyArray<CliError>, SavedApplicationV1> => {
  const { application, plan, input } = planned;
  const printed = displayRedactor(plan.status.mangledObserverSchema); // the sensitive marks looked up once per plan
  const results = plan.actions.map((action, index) =>
    E.map(withImpact(planned.impacts?.[index]))(savedAction(action, request, live, printed)),
  );
  const problems = results.flatMap((result) => (E.isLeft(result) ? result.left : []));
  if (problems.length > 0) {
    return E.left(
      problems.map((message) => ({
        _tag: 'PlanError',
        location: { file: input.origin.file, document: input.origin.document },
        subject: subjectOf(application),
        message: `cannot save the plan: ${message}`,
      })),
    );
  }
  const { status, actions: _unguarded, application: identity, ...rest } = applicationPlanV1(planned);
  const { resourceVersion } = application.metadata;
  const contested = plan.status.contestedFields ?? [];
  return E.right({
    ...rest,
    ...(contested.length === 0 ? {} : { contestedFields: contested }),
    application: { ...identity, ...(typeof resourceVersion === 'string' ? { resourceVersion } : {}) },
    conditions: status.conditions ?? [],
    digest: judgedDigest(
      request.policy,
      { namespace: identity.namespace ?? 'default', name: identity.name },
      plan.actions,
    ),
    actions: results.flatMap((result) => (E.isRight(result) && result.right !== undefined ? [result.right] : [])),
  });
};

const scopesOf = (
  applications: ReadonlyArray<SavedApplicationV1>,
  scopes: ScopeTable,
): SavedPlanV1['metadata']['scopes'] => {
  const entries = applications.flatMap((application) =>
    application.actions.flatMap(({ resource }) => {
      const scope = scopeOf(scopes, resource);
      return scope === undefined ? [] : [[scopeKey(resource.apiVersion, resource.kind), scope] as const];
    }),
  );
  return Object.fromEntries([...entries].sort(([a], [b]) => a.localeCompare(b)));
};

/**
 * The saved plan of one `kreconcile plan --out` run.
 * Errors (every one, one line each): a write of Secret values without `allowSecretValues`; a
 * patch or delete of a live object without resourceVersion (nothing to guard it with).
 */
export const savePlan = (request: SaveRequest): E.Either<ReadonlyArray<CliError>, SavedPlanV1> => {
  const live = new Map(request.live.map((object) => [refKey(refOf(object)), object]));
  const saved = request.planned.map((planned) => savedApplication(planned, request, live));
  const errors = saved.flatMap((result) => (E.isLeft(result) ? result.left : []));
  if (errors.length > 0) return E.left(errors);
  const applications = saved.flatMap((result) => (E.isRight(result) ? [result.right] : []));
  return E.right({
    apiVersion: SAVED_PLAN_API_VERSION,
    kind: SAVED_PLAN_KIND,
    metadata: {
      createdAt: request.now,
      kreconcileVersion: request.version,
      cluster: request.cluster,
      secretValues:
        request.allowSecretValues && request.planned.some(({ plan }) => plan.actions.some(writesSecretValues)),
      scopes: scopesOf(applications, request.scopes),
      ...defined({ guard: request.guard }),
    },
    applications,
  });
};

/**
 * Saves the plan to `path` (see `savePlan`). Errors: what `savePlan` refuses; a file that
 * cannot be written, as one line.
 */
export const writeSavedPlan = async (
  io: CliIo,
  path: string,
  request: SaveRequest,
): Promise<E.Either<ReadonlyArray<CliError>, SavedPlanV1>> => {
  const saved = savePlan(request);
  if (E.isLeft(saved)) return saved;
  try {
    await io.writeFile(path, serialize(saved.right, 'json'));
    return saved;
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    return E.left([
      inputError(
        `cannot write the plan${code === '' ? '' : ` (${code})`}: ${error instanceof Error ? error.message : String(error)}: choose a writable path for --out`,
        { location: { file: path } },
      ),
    ]);
  }
};
