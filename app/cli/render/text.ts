/**
 * The human plan (`-o text`): per Application a header, one line per action with a symbol
 * (`+` create, `~` patch, `-` delete, `-/+` recreate, `…` wait, `!` conflict or forbidden; a `skip` withheld by
 * `kreconcile.io/apply` dimmed, with the symbol of the write withheld), field changes under patches, then a summary.
 */
import {
  conditionOf,
  showRef,
  type Action,
  type FieldChange,
  type Impact,
  type JsonValue,
  type PatchAction,
  type PlanSummary,
  type SkipAction,
} from '../../../core/internal.js';
import type { Planned } from '../planning/plan-applications.js';
import { addSummaries, EMPTY_SUMMARY, translatedV1 } from './plan-document.js';
import type { Style } from '../style.js';
import { fieldOwnerLines } from './field-owners.js';

const ARROW = '→';
const ABSENT = '(absent)';

const showValue = (value: JsonValue | undefined): string => (value === undefined ? ABSENT : JSON.stringify(value));

const showChange = (change: FieldChange): string =>
  `${change.path}: ${showValue(change.from)} ${ARROW} ${showValue(change.to)}`;

const DELETE_REASONS: Readonly<Record<string, string>> = {
  RemovedFromSpec: 'removed from spec',
  ApplicationDeleted: 'the Application is being deleted',
};

/** How a patch is sent, when `spec.applyMode: ServerSideApply` (JsonPatch plans print no mode). */
const patchMode = (action: PatchAction): string => {
  if (action.positionalLists !== undefined)
    return ` (JSON Patch, not server-side apply: live names off the observed positions in ${action.positionalLists.join(', ')})`;
  return action.serverSideApply === undefined
    ? ''
    : ` (server-side apply${action.serverSideApply.force ? ', forcing conflicts' : ''})`;
};

/** The lines of one action, coloured by what it does. */
export const actionLines = (action: Action, style: Style): ReadonlyArray<string> => {
  const ref = showRef(action.ref);
  switch (action.type) {
    case 'create':
      return [style.green(`  + ${ref}`)];
    case 'patch':
      if (action.orphan !== undefined)
        return [
          style.yellow(`  ~ ${ref}`) +
            style.dim(
              ` (orphan: kreconcile.io/prune: disabled, ${DELETE_REASONS[action.orphan] ?? action.orphan}; owner marks removed, the object stays)`,
            ),
          ...action.changes.map((change) => `      ${showChange(change)}`),
        ];
      return [
        style.yellow(`  ~ ${ref}`) + style.dim(patchMode(action)),
        ...action.changes.map((change) => `      ${showChange(change)}`),
      ];
    case 'delete':
      return [style.red(`  - ${ref}`) + style.dim(` (${DELETE_REASONS[action.reason] ?? action.reason})`)];
    case 'recreate':
      return [
        style.red(`  -/+ ${ref}`) + style.dim(` (recreate: ${action.fields.join(', ')} cannot change in place)`),
        ...action.changes.map((change) => `      ${showChange(change)}`),
      ];
    case 'wait':
      return [
        style.dim(
          `  … ${ref} waits for ${action.for.map(showRef).join(', ')} to be ${action.until === 'DependenciesReady' ? 'ready (kreconcile.io/depends-on)' : 'gone (they depend on it)'}`,
        ),
      ];
    case 'conflict':
      return [style.red(style.bold(`  ! ${ref}`)) + `: ${conflictNote(action.reason, action.owner)}`];
    case 'forbidden':
      return [style.red(style.bold(`  ! ${ref}`)) + `: forbidden (${action.rule}): ${action.reason}; never written`];
    case 'skip':
      return [
        style.dim(`  ${SKIP_SYMBOLS[action.withheld]} skip (apply: ${action.apply}) ${ref}, ${skipNote(action)}`),
        ...action.changes.map((change) => style.dim(`      ${showChange(change)}`)),
      ];
    case 'addFinalizer':
      return [style.dim(`  · add finalizer ${action.finalizer} to the Application`)];
    case 'removeFinalizer':
      return [style.dim(`  · remove finalizer ${action.finalizer} from the Application`)];
  }
};

/** What an action does at run time, one line each under it (`⇒ rolls 3 pods of …`). */
export const impactLines = (impacts: ReadonlyArray<Impact>): ReadonlyArray<string> =>
  impacts.map((impact) => `      ⇒ ${impact.message}`);

/** A withheld write keeps the symbol of the write it would have been. */
const SKIP_SYMBOLS: Readonly<Record<SkipAction['withheld'], string>> = {
  create: '+',
  patch: '~',
  recreate: '-/+',
  conflict: '·',
};

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What a `skip` entry leaves undone: `missing, not created` or `2 fields drifted, not patched`. */
export const skipNote = (action: SkipAction): string => {
  switch (action.withheld) {
    case 'create':
      return 'missing, not created';
    case 'conflict':
      return "exists, not this Application's: left alone";
    case 'patch':
    case 'recreate':
      return `${plural(action.changes.length, 'field')} drifted, not ${action.withheld === 'patch' ? 'patched' : 'recreated'}`;
  }
};

const conflictNote = (reason: string, owner: string | undefined): string =>
  reason === 'OwnedByAnother'
    ? `owned by Application ${owner ?? '(unknown)'}; it is never touched`
    : 'exists but is not managed by this Application; set spec.adopt: true to take it over';

/** `Plan: 2 to create, 1 to patch, 0 to delete.` plus conflicts when there are any. */
export const summaryLine = (summary: PlanSummary, label = 'Plan'): string =>
  `${label}: ${summary.create} to create, ${summary.patch} to patch, ${summary.delete} to delete${(summary.recreate ?? 0) > 0 ? `, ${summary.recreate ?? 0} to recreate` : ''}${(summary.wait ?? 0) > 0 ? `, ${summary.wait ?? 0} waiting` : ''}${summary.conflict > 0 ? `, ${plural(summary.conflict, 'conflict')}` : ''}${(summary.forbidden ?? 0) > 0 ? `, ${summary.forbidden} forbidden` : ''}${(summary.skip ?? 0) > 0 ? `, ${summary.skip ?? 0} skipped` : ''}.`;

/** What the plan concluded, when there is something to say beyond the actions. */
const verdictLines = (planned: Planned, style: Style): ReadonlyArray<string> => {
  const conditions = planned.plan.status.conditions;
  const stalled = conditionOf(conditions, 'Stalled');
  if (stalled?.status === 'True') return [style.red(`  Stalled (${stalled.reason}): ${stalled.message}`)];
  const { create, patch, delete: deletions, recreate = 0, wait = 0 } = planned.plan.summary;
  if (create + patch + deletions + recreate + wait > 0) return [];
  const ready = conditionOf(conditions, 'Ready');
  if (ready?.status === 'True') return [`  No changes: ${ready.message}.`];
  if (ready?.reason === 'Suspended') return [style.dim(`  Suspended: ${ready.message}.`)];
  const reconciling = conditionOf(conditions, 'Reconciling');
  return reconciling?.status === 'True' && reconciling.message !== ''
    ? [`  No resource changes; ${reconciling.message}.`]
    : [];
};

/** Where a TOSCA Application's resources come from: `  spec.tosca (inline) → v1 ConfigMap web-config, …`. */
const translationLines = (planned: Planned, style: Style): ReadonlyArray<string> => {
  if (planned.input.translated === undefined) return [];
  const { from, url, resources } = translatedV1(planned.application, planned.input.translated);
  const shown = resources.map(
    (r) => `${r.apiVersion} ${r.kind} ${r.namespace === undefined ? '' : `${r.namespace}/`}${r.name}`,
  );
  return [style.dim(`  ${from} (${url ?? 'inline'}) ${ARROW} ${shown.join(', ')}`)];
};

export const applicationLines = (planned: Planned, style: Style): ReadonlyArray<string> => {
  const { metadata } = planned.application;
  const { origin } = planned.input;
  return [
    style.bold(`Application ${metadata.namespace ?? 'default'}/${metadata.name}`) +
      style.dim(` (${origin.file}${origin.document > 0 ? `, document ${origin.document}` : ''})`),
    ...translationLines(planned, style),
    ...planned.plan.actions.flatMap((action, index) => [
      ...actionLines(action, style),
      ...impactLines(planned.impacts?.[index] ?? []),
    ]),
    ...fieldOwnerLines(planned, style),
    ...verdictLines(planned, style),
    '',
    summaryLine(planned.plan.summary),
  ];
};

/** The whole text output; a total closes it when several Applications were planned. */
export const renderText = (plans: ReadonlyArray<Planned>, style: Style): string => {
  const blocks = plans.map((planned) => applicationLines(planned, style).join('\n'));
  const total =
    plans.length > 1
      ? [summaryLine(plans.map((p) => p.plan.summary).reduce(addSummaries, EMPTY_SUMMARY), 'Total')]
      : [];
  return `${[...blocks, ...total].join('\n\n')}\n`;
};
