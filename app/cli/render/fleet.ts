/**
 * The fleet plan as printed (`kreconcile fleet-plan`; docs/plan-output.md, "Fleet plan"): text,
 * markdown for a pull request, and the JSON/YAML document `kreconcile.io/fleet-plan/v1`. Totals per
 * action, kind and fields; conflicts between Applications with who wins; the instances grouped by
 * identical change with one example each (printed by the plan renderers, impacts included); the
 * guard's denials; every plan with `--all`. Secret values appear nowhere (the plan renderers mask them).
 */
import {
  adviceFor,
  isDenied,
  showRef,
  type ContestedField,
  type FleetConflict,
  type FleetReport,
  type GuardVerdict,
} from '../../../core/internal.js';
import { showContested } from './field-owners.js';
import type { Planned } from '../planning/plan-applications.js';
import { applicationSection, GITHUB_COMMENT_LIMIT, plain } from './markdown.js';
import {
  applicationPlanV1,
  hasChanges,
  refV1,
  summaryV1,
  type ApplicationPlanV1,
  type ClusterBasis,
  type ResourceRefV1,
  type SummaryV1,
} from './plan-document.js';
import type { Style } from '../style.js';
import { applicationLines, summaryLine } from './text.js';

export const FLEET_PLAN_API_VERSION = 'kreconcile.io/fleet-plan/v1';

/** What is printed: the plans, the report over them, and the guard's verdicts (parallel to the plans). */
export type FleetView = {
  readonly planned: ReadonlyArray<Planned>;
  readonly report: FleetReport;
  readonly verdicts: ReadonlyArray<GuardVerdict>;
  /** Print every plan, not only one example per group. */
  readonly all: boolean;
};

const nameOf = (planned: Planned | undefined): string =>
  planned === undefined
    ? '(unknown)'
    : `${planned.application.metadata.namespace ?? 'default'}/${planned.application.metadata.name}`;

const names = (view: FleetView, indexes: ReadonlyArray<number>): ReadonlyArray<string> =>
  indexes.map((index) => nameOf(view.planned[index]));

/** At most `shown` names, then how many more. */
const someNames = (all: ReadonlyArray<string>, shown = 5): string =>
  all.length <= shown ? all.join(', ') : `${all.slice(0, shown).join(', ')} and ${all.length - shown} more`;

/** Who wins a contested object on the server, in words (decision 0014: the owner mark decides). */
export const conflictMessage = (view: FleetView, conflict: FleetConflict): string => {
  const contenders = names(view, conflict.applications);
  const { winner } = conflict;
  const others = (keeper: number): string =>
    someNames(
      names(
        view,
        conflict.applications.filter((index) => index !== keeper),
      ),
    );
  switch (winner.type) {
    case 'FirstToCreate':
      return `declared by ${someNames(contenders)}; it does not exist yet: whichever creates it first keeps it (its owner mark), the others' creations are refused AlreadyExists and they stall NotOwned`;
    case 'Owner':
      return `declared by ${someNames(contenders)}; ${nameOf(view.planned[winner.index])} owns it (owner mark) and keeps it; ${others(winner.index)} stall NotOwned`;
    case 'OwnedElsewhere':
      return `declared by ${someNames(contenders)}; Application ${winner.owner} owns it (owner mark): every one of them stalls NotOwned`;
    case 'Unowned':
      return winner.adopters.length === 0
        ? `declared by ${someNames(contenders)}; it exists without an owner mark and none sets spec.adopt: every one of them stalls NotOwned`
        : `declared by ${someNames(contenders)}; it exists without an owner mark: the first of ${someNames(names(view, winner.adopters))} (spec.adopt) to reconcile adopts it, the others stall NotOwned`;
  }
};

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `37 instances patch Deployment spec.template (37 objects)`. */
const totalLines = (report: FleetReport): ReadonlyArray<string> =>
  report.totals.length === 0
    ? ['  No changes in any instance.']
    : report.totals.map(
        (t) =>
          `  ${plural(t.instances, 'instance')} ${t.action} ${t.kind}${t.fields.length === 0 ? '' : ` ${t.fields.join(', ')}`} (${plural(t.objects, 'object')})`,
      );

const guardLines = (view: FleetView): ReadonlyArray<string> =>
  view.verdicts
    .filter(isDenied)
    .flatMap((verdict) => [
      `  denied: Application ${verdict.application.namespace}/${verdict.application.name} (plan ${verdict.digest})`,
      ...verdict.violations.map((v) => `    rule ${JSON.stringify(v.rule)}: ${v.message}`),
    ]);

const indent = (text: string): string => (text === '' ? '' : `    ${text}`);

/** Per instance, the fields it leaves to their controllers, with the cure (docs/field-owners.md). */
const fightLines = (view: FleetView): ReadonlyArray<string> =>
  view.report.fights.flatMap((fight) => [
    `  Application ${nameOf(view.planned[fight.instance])}:`,
    ...fight.fields.flatMap((field) => [`    ${showContested(field)}`, `      to end it: ${adviceFor(field)}`]),
  ]);

const FIGHTS_TITLE = 'Field fights (left to the controllers that own them, not patched back):';

/** The text report; `header`: what was planned against (the plan's basis line). */
export const renderFleetText = (view: FleetView, style: Style, header: string): string => {
  const { report } = view;
  const groups = report.groups.flatMap((group) => {
    const example = view.planned[group.instances[0] ?? 0];
    return [
      style.bold(`  ${plural(group.instances.length, 'Application')}: ${someNames(names(view, group.instances))}`),
      ...(example === undefined ? [] : applicationLines(example, style).map(indent)),
      '',
    ];
  });
  const conflicts = report.conflicts.map(
    (c) => style.red(style.bold(`  ! ${showRef(c.object)}`)) + `: ${conflictMessage(view, c)}`,
  );
  const guard = guardLines(view);
  return [
    header,
    style.bold('Totals:'),
    ...totalLines(report),
    summaryLine(report.summary, 'Fleet'),
    '',
    ...(conflicts.length === 0 ? [] : [style.bold('Conflicts between Applications:'), ...conflicts, '']),
    ...(guard.length === 0 ? [] : [style.bold('Guard:'), ...guard.map(style.red), '']),
    ...(report.fights.length === 0 ? [] : [style.bold(style.yellow(FIGHTS_TITLE)), ...fightLines(view), '']),
    style.bold(`Changes, grouped (${plural(report.groups.length, 'group')}, one example each):`),
    ...groups,
    ...(view.all
      ? [style.bold('Every plan:'), '', ...view.planned.flatMap((p) => [...applicationLines(p, style), ''])]
      : []),
  ].join('\n');
};

/** The totals table of the markdown report: one row per action and kind. */
const markdownTotals = ({ report }: FleetView): ReadonlyArray<string> =>
  report.totals.length === 0
    ? ['No changes in any instance.']
    : [
        '| action | kind | fields | instances | objects |',
        '|---|---|---|---:|---:|',
        ...report.totals.map(
          (t) =>
            `| ${t.action} | ${plain(t.kind)} | ${t.fields.map((f) => `\`${f}\``).join(', ')} | ${t.instances} | ${t.objects} |`,
        ),
      ];

/** The markdown section on objects two Applications both want; none when there are none. */
const markdownConflicts = (view: FleetView): ReadonlyArray<string> =>
  view.report.conflicts.length === 0
    ? []
    : [
        '#### Conflicts between Applications',
        '',
        ...view.report.conflicts.map((c) => `- **${plain(showRef(c.object))}**: ${plain(conflictMessage(view, c))}`),
        '',
      ];

/** The markdown section on fields contested with another field manager; none when there are none. */
const markdownFights = (view: FleetView): ReadonlyArray<string> =>
  view.report.fights.length === 0
    ? []
    : [
        '#### Field fights',
        '',
        ...view.report.fights.flatMap((fight) =>
          fight.fields.map(
            (field) =>
              `- Application ${plain(nameOf(view.planned[fight.instance]))}: ${plain(`${showContested(field)}. To end it: ${adviceFor(field)}.`)}`,
          ),
        ),
        '',
      ];

/** The markdown report, cut to fit a GitHub comment. */
export const renderFleetMarkdown = (view: FleetView, header: string, limit = GITHUB_COMMENT_LIMIT): string => {
  const { report } = view;
  const head = [
    '### kreconcile fleet plan',
    '',
    plain(header.trim()),
    '',
    ...markdownTotals(view),
    '',
    ...markdownConflicts(view),
    ...markdownFights(view),
    ...(view.verdicts.some(isDenied)
      ? ['#### Denied by the guard', '', ...guardLines(view).map((line) => `- ${plain(line.trim())}`), '']
      : []),
    '#### Changes, grouped (one example each)',
    '',
  ].join('\n');
  const sections = report.groups.map((group) => {
    const example = view.planned[group.instances[0] ?? 0];
    return `**${plural(group.instances.length, 'Application')}**: ${plain(someNames(names(view, group.instances)))}\n\n${example === undefined ? '' : applicationSection(example)}`;
  });
  const every = view.all ? view.planned.map(applicationSection) : [];
  return capped(`${head}\n`, [...sections, ...every], limit);
};

const capped = (head: string, sections: ReadonlyArray<string>, limit: number): string => {
  let text = head;
  let shown = 0;
  for (const section of sections) {
    if (text.length + section.length + 2 > limit - 400) break;
    text += `${section}\n\n`;
    shown++;
  }
  return shown < sections.length
    ? `${text}> Truncated to fit a GitHub comment: ${sections.length - shown} of ${sections.length} sections left out; see \`kreconcile fleet-plan -o json\`.\n`
    : text;
};

export type FleetPlanDocumentV1 = {
  readonly apiVersion: typeof FLEET_PLAN_API_VERSION;
  readonly kind: 'FleetPlan';
  readonly metadata: { readonly now: string; readonly cluster: ClusterBasis };
  readonly summary: SummaryV1 & { readonly changes: boolean; readonly applications: number };
  readonly totals: FleetReport['totals'];
  readonly conflicts: ReadonlyArray<{
    readonly object: ResourceRefV1;
    readonly applications: ReadonlyArray<string>;
    readonly winner: {
      readonly type: string;
      readonly application?: string;
      readonly adopters?: ReadonlyArray<string>;
    };
    readonly message: string;
  }>;
  readonly groups: ReadonlyArray<{ readonly applications: ReadonlyArray<string>; readonly example: ApplicationPlanV1 }>;
  /** Applications leaving observed fields to the controllers that own them (present when any does). */
  readonly fights?: ReadonlyArray<{ readonly application: string; readonly fields: ReadonlyArray<ContestedField> }>;
  readonly guard?: ReadonlyArray<{
    readonly application: string;
    readonly digest: string;
    readonly denied: boolean;
    readonly violations: ReadonlyArray<string>;
  }>;
  readonly plans?: ReadonlyArray<ApplicationPlanV1>;
};

const winnerV1 = (view: FleetView, conflict: FleetConflict): FleetPlanDocumentV1['conflicts'][number]['winner'] => {
  const { winner } = conflict;
  switch (winner.type) {
    case 'Owner':
      return { type: 'Owner', application: nameOf(view.planned[winner.index]) };
    case 'OwnedElsewhere':
      return { type: 'OwnedElsewhere', application: winner.owner };
    case 'Unowned':
      return { type: 'Unowned', adopters: names(view, winner.adopters) };
    case 'FirstToCreate':
      return { type: 'FirstToCreate' };
  }
};

export const fleetPlanDocument = (
  view: FleetView,
  meta: { readonly now: string; readonly cluster: ClusterBasis },
): FleetPlanDocumentV1 => {
  const { report } = view;
  const summary = report.summary;
  return {
    apiVersion: FLEET_PLAN_API_VERSION,
    kind: 'FleetPlan',
    metadata: meta,
    summary: {
      ...summaryV1(summary),
      changes: hasChanges(summary) || report.conflicts.length > 0,
      applications: view.planned.length,
    },
    totals: report.totals,
    conflicts: report.conflicts.map((c) => ({
      object: refV1(c.object),
      applications: names(view, c.applications),
      winner: winnerV1(view, c),
      message: conflictMessage(view, c),
    })),
    groups: report.groups.flatMap((group) => {
      const example = view.planned[group.instances[0] ?? 0];
      return example === undefined
        ? []
        : [{ applications: names(view, group.instances), example: applicationPlanV1(example) }];
    }),
    ...(report.fights.length === 0
      ? {}
      : {
          fights: report.fights.map((fight) => ({
            application: nameOf(view.planned[fight.instance]),
            fields: fight.fields,
          })),
        }),
    ...(view.verdicts.length === 0
      ? {}
      : {
          guard: view.verdicts.map((v) => ({
            application: `${v.application.namespace}/${v.application.name}`,
            digest: v.digest,
            denied: isDenied(v),
            violations: v.violations.map((violation) => `${violation.rule}: ${violation.message}`),
          })),
        }),
    ...(view.all ? { plans: view.planned.map(applicationPlanV1) } : {}),
  };
};
