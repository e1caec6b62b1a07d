/**
 * The plan made for review (`plan -o markdown`, `show plan.json -o markdown`): a pull request
 * comment. Totals per action and kind; deletes, recreates, orphanings and guard denials first,
 * writes withheld by `kreconcile.io/apply` (skip) last; then, per Application, collapsible field changes. Secret values
 * never appear (the planner masks
 * its explanations; values under a Secret's data are masked here again), and the result fits
 * GitHub's comment limit, truncated with a note when it would not.
 */
import {
  conditionOf,
  isDenied,
  showRef,
  type Action,
  type FieldChange,
  type GuardVerdict,
  type JsonValue,
} from '../../../core/internal.js';
import { fieldOwnerMarkdown } from './field-owners.js';
import type { Planned } from '../planning/plan-applications.js';
import { skipNote } from './text.js';

/** GitHub refuses issue and pull request comments longer than this (characters). */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** Kept free below the limit for the truncation note. */
const NOTE_ROOM = 400;

const MASK = '(sensitive)';

type Row = { readonly kind: string; readonly action: string };

/** What an action does, as the tables and lists name it. */
const verb = (action: Action): string =>
  action.type === 'patch' && action.orphan !== undefined
    ? 'orphan'
    : action.type === 'addFinalizer' || action.type === 'removeFinalizer'
      ? 'finalizer'
      : action.type;

const ORDER = ['delete', 'recreate', 'orphan', 'forbidden', 'conflict', 'create', 'patch', 'wait', 'skip'];

const isSecretData = (action: Action, change: FieldChange): boolean =>
  action.ref.apiVersion === 'v1' && action.ref.kind === 'Secret' && /^(data|stringData)([.[]|$)/.test(change.path);

/** A value in a code span or block: JSON, masked under a Secret's data unless already a digest. */
const shown = (action: Action, change: FieldChange, value: JsonValue | undefined): string => {
  if (value === undefined) return '(absent)';
  if (isSecretData(action, change) && !(typeof value === 'string' && /^(sha256:[0-9a-f]{64}|\(.*\))$/.test(value)))
    return JSON.stringify(MASK);
  return JSON.stringify(value);
};

/** A fence longer than any run of backticks in `text`, so no value can close the block. */
const fence = (text: string): string => {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
};

/** Text safe in a table cell or list item: no markup, no line breaks. */
export const plain = (text: string): string =>
  text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\s*\n\s*/g, ' ');

const subjectOf = (planned: Planned): string =>
  `${planned.application.metadata.namespace ?? 'default'}/${planned.application.metadata.name}`;

const totalsTable = (plans: ReadonlyArray<Planned>): ReadonlyArray<string> => {
  const counts = new Map<string, number>();
  for (const { plan } of plans)
    for (const action of plan.actions) {
      const row: Row = { kind: action.ref.kind, action: verb(action) };
      if (row.action === 'finalizer') continue;
      const key = `${row.action}\u0000${row.kind}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  if (counts.size === 0) return ['No changes.'];
  const rows = [...counts.entries()]
    .map(([key, count]) => {
      const [action = '', kind = ''] = key.split('\u0000');
      return { action, kind, count };
    })
    .sort((a, b) => ORDER.indexOf(a.action) - ORDER.indexOf(b.action) || a.kind.localeCompare(b.kind));
  return [
    '| action | kind | count |',
    '|---|---|---:|',
    ...rows.map((r) => `| ${r.action} | ${plain(r.kind)} | ${r.count} |`),
  ];
};

const DESTRUCTIVE = new Set(['delete', 'recreate', 'orphan']);

/** Guard denials, then every delete, recreate and orphaning, one line each. */
const attention = (plans: ReadonlyArray<Planned>, verdicts: ReadonlyArray<GuardVerdict>): ReadonlyArray<string> => {
  const denials = verdicts
    .filter(isDenied)
    .flatMap((verdict) => [
      ...verdict.violations.map(
        (v) =>
          `- :no_entry: **denied** by guard rule \`${plain(v.rule)}\`: ${plain(v.message)} (Application ${plain(`${verdict.application.namespace}/${verdict.application.name}`)})`,
      ),
      `- approve after review: pass \`--approve ${verdict.digest}\` to the pipeline's plan and apply, from a place this change cannot write (docs/ci.md, "Approvals")`,
    ]);
  const approved = verdicts
    .filter((verdict) => verdict.violations.length > 0 && !isDenied(verdict))
    .map(
      (verdict) =>
        `- approved (\`--approve\`): Application ${plain(`${verdict.application.namespace}/${verdict.application.name}`)} despite ${verdict.violations.map((v) => `\`${plain(v.rule)}\``).join(', ')}`,
    );
  const destructive = plans.flatMap((planned) =>
    planned.plan.actions
      .filter((action) => DESTRUCTIVE.has(verb(action)))
      .map(
        (action) =>
          `- **${verb(action)}** ${plain(showRef(action.ref))}${action.type === 'recreate' ? ` (${plain(action.fields.join(', '))} cannot change in place)` : ''} (Application ${plain(subjectOf(planned))})`,
      ),
  );
  const stalled = plans.flatMap((planned) => {
    const condition = conditionOf(planned.plan.status.conditions, 'Stalled');
    return condition?.status === 'True'
      ? [
          `- **stalled** Application ${plain(subjectOf(planned))} (${plain(condition.reason)}): ${plain(condition.message)}`,
        ]
      : [];
  });
  const lines = [...denials, ...approved, ...stalled, ...destructive, ...impactAttention(plans)];
  return lines.length === 0 ? [] : ['#### Needs attention', '', ...lines];
};

/** Impacts a reviewer must not miss: config changes running pods never see, and what a recreation or deletion loses. */
const impactAttention = (plans: ReadonlyArray<Planned>): ReadonlyArray<string> =>
  plans.flatMap((planned) =>
    planned.plan.actions.flatMap((action, index) =>
      (planned.impacts?.[index] ?? [])
        .filter((impact) => impact.type === 'configStale' || impact.type === 'loss')
        .map(
          (impact) =>
            `- **${impact.type === 'loss' ? 'loses' : 'not seen until restart'}** ${plain(showRef(action.ref))}: ${plain(impact.message)} (Application ${plain(subjectOf(planned))})`,
        ),
    ),
  );

/** One object's changes as a diff block. */
const changeBlock = (action: Action): string => {
  const lines = action.changes.map(
    (change) => `${change.path}: ${shown(action, change, change.from)} → ${shown(action, change, change.to)}`,
  );
  const body = lines.join('\n');
  const marker = fence(body);
  return `${marker}\n${body}\n${marker}`;
};

const SYMBOL: Readonly<Record<string, string>> = {
  create: '+',
  patch: '~',
  delete: '-',
  recreate: '-/+',
  orphan: '~',
  wait: '…',
  conflict: '!',
  forbidden: '!',
  skip: '·',
};

/** What an entry says after its object: why a `skip` writes nothing (the text plan's words). */
const note = (action: Action): string =>
  action.type === 'skip' ? ` (apply: ${action.apply}), ${skipNote(action)}` : '';

/** An Application's collapsible section: one entry per object, its field changes below. */
export const applicationSection = (planned: Planned): string => {
  const entries = planned.plan.actions.flatMap((action, index) => {
    if (verb(action) === 'finalizer') return [];
    const head = `\`${SYMBOL[verb(action)] ?? '·'}\` ${verb(action)} ${plain(showRef(action.ref))}${plain(note(action))}`;
    const impacts = (planned.impacts?.[index] ?? []).map((impact) => `\n  - ⇒ ${plain(impact.message)}`).join('');
    return action.changes.length === 0 ? [`- ${head}${impacts}`] : [`- ${head}${impacts}\n\n${changeBlock(action)}\n`];
  });
  const { create, patch, delete: deletions, skip = 0 } = planned.plan.summary;
  const skipped = skip > 0 ? `, ${skip} skipped` : '';
  return [
    `<details><summary>Application ${plain(subjectOf(planned))}: ${create} to create, ${patch} to patch, ${deletions} to delete${skipped}</summary>`,
    '',
    ...(entries.length === 0 ? ['No changes.'] : entries),
    ...fieldOwnerMarkdown(planned, plain),
    '',
    '</details>',
  ].join('\n');
};

/**
 * The markdown of a plan (`verdicts`: the guard's, when `--guard` was given), at most `limit`
 * characters: sections that do not fit are left out, and a note says how many.
 */
export const renderMarkdown = (
  plans: ReadonlyArray<Planned>,
  verdicts: ReadonlyArray<GuardVerdict> = [],
  limit = GITHUB_COMMENT_LIMIT,
): string => {
  const head = ['### kreconcile plan', '', ...totalsTable(plans), '', ...attention(plans, verdicts), ''].join('\n');
  const sections = plans.map(applicationSection);
  let text = `${head}\n`;
  let shownCount = 0;
  for (const section of sections) {
    if (text.length + section.length + 2 > limit - NOTE_ROOM) break;
    text += `${section}\n\n`;
    shownCount++;
  }
  if (shownCount < sections.length)
    text += `> Truncated to fit a GitHub comment: the changes of ${sections.length - shownCount} of ${sections.length} Applications are left out; see the full plan with \`kreconcile plan -o json\`.\n`;
  // The head alone (a huge attention list) is cut too, at a line boundary.
  return text.length <= limit
    ? text
    : `${text.slice(0, text.lastIndexOf('\n', limit - NOTE_ROOM))}\n\n> Truncated to fit a GitHub comment.\n`;
};
