/**
 * Lint step: no citation of a design document that lives outside the repository (`../shared/…`,
 * SPEC.md, ARCHITECTURE.md, REAL-APISERVER.md, CLIENT-NODE.md, "SPEC §…"): a clone must hold the
 * design it is built to (docs/behaviour.md, docs/architecture.md, docs/decisions/).
 *
 *   node --import tsx tools/lint/no-outside-docs.ts         lists every citation as file:line:column; exit 1 when there
 * is one
 *   node --import tsx tools/lint/no-outside-docs.ts --fix   rewrites them to docs/behaviour.md / docs/architecture.md,
 * then lists what is left
 *
 * The rewrite is mechanical: SPEC's section N is docs/behaviour.md §N, its loop step N is §4.N;
 * ARCHITECTURE's example N is docs/architecture.md example N (both pages keep those numbers).
 * Files are those git tracks or would track (`git ls-files --cached --others --exclude-standard`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A citation found: where, and the text matched. */
export type Citation = { readonly line: number; readonly column: number; readonly text: string };

// Not part of a longer identifier: SPEC_FIELDS, POD_SPEC_PATHS and SPECIFIER are code, not citations.
const word = (name: string): string => `(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`;

const CITATION = new RegExp(
  [
    String.raw`\.\./shared\b[^\s'"\x60)]*`,
    `${word('SPEC')}(?:\\.md)?`,
    `${word('ARCHITECTURE')}(?:\\.md)?`,
    String.raw`(?:docs/)?REAL-APISERVER\.md`,
    String.raw`(?:docs/)?CLIENT-NODE\.md`,
  ].join('|'),
  'g',
);

/** Every citation of an outside document in `text`, with 1-based line and column. */
export const citationsIn = (text: string): ReadonlyArray<Citation> =>
  text.split('\n').flatMap((lineText, index) =>
    [...lineText.matchAll(CITATION)].map((match) => ({
      line: index + 1,
      column: (match.index ?? 0) + 1,
      text: match[0],
    })),
  );

const BEHAVIOUR = 'docs/behaviour.md';
const ARCHITECTURE = 'docs/architecture.md';
const TEST_CONTROL_PLANE = `${ARCHITECTURE}#the-real-api-server-in-the-tests`;

const spec = String.raw`(?:\.\./shared/docs/)?${word('SPEC')}(?:\.md)?`;
const architecture = String.raw`(?:\.\./shared/docs/)?${word('ARCHITECTURE')}(?:\.md)?`;
const outsideTestDocs = String.raw`(?:\.\./shared/docs/|docs/)?(?:REAL-APISERVER|CLIENT-NODE)\.md(?: ?§ ?[0-9]+(?:\.[0-9]+)*)?`;
const section = String.raw`(?:§ ?|sections? )`;
const number = String.raw`[0-9]+(?:\.[0-9]+)*`;
// Between a document's name and its section: a space, or a comment's line break and leader.
const gap = String.raw`( |\n[ \t]*(?:\* ?|// ?|# ?)?)`;

/** Rewrites, most specific first; each is [pattern, replacement]. */
const REWRITES: ReadonlyArray<readonly [RegExp, string | ((...groups: string[]) => string)]> = [
  // The Krake walk-through SPEC.md quoted is not carried over; behaviour.md keeps its semantics.
  [new RegExp(String.raw` \(${spec}'s reference text\)`, 'g'), ''],
  [new RegExp(String.raw`\(${spec}, the reference text\)`, 'g'), `(its semantics: ${BEHAVIOUR})`],
  // "SPEC step 4 and section 6", "SPEC step 1, section 7": a loop step is §4.N.
  [
    new RegExp(String.raw`${spec}${gap}step (${number})(,| and) section (${number})`, 'g'),
    (_m, space, step, joiner, sectionNumber) => `${BEHAVIOUR}${space}§4.${step}${joiner} §${sectionNumber}`,
  ],
  [new RegExp(String.raw`${spec}${gap}step (${number})`, 'g'), (_m, space, step) => `${BEHAVIOUR}${space}§4.${step}`],
  // "SPEC section 4, step 6"
  [
    new RegExp(String.raw`${spec}${gap}${section}4, step (${number})`, 'g'),
    (_m, space, step) => `${BEHAVIOUR}${space}§4.${step}`,
  ],
  // "SPEC sections 1–3", "SPEC.md section 6", "SPEC §3.2", "(SPEC\n * section 6 …"
  [
    new RegExp(String.raw`${spec}${gap}${section}(${number})(?:([–-])(${number}))?`, 'g'),
    (_m, space, from, dash, to) => `${BEHAVIOUR}${space}§${from}${dash === undefined ? '' : `${dash}${to}`}`,
  ],
  [new RegExp(String.raw`${architecture} (example ${number})`, 'g'), (_m, example) => `${ARCHITECTURE} ${example}`],
  [new RegExp(outsideTestDocs, 'g'), TEST_CONTROL_PLANE],
  // What README said of the outside copy no longer holds once the citation is inside.
  [new RegExp(String.raw`${spec}(\x60?) \(kept beside the repository\)`, 'g'), `${BEHAVIOUR}$1`],
  [new RegExp(spec, 'g'), BEHAVIOUR],
  [new RegExp(architecture, 'g'), ARCHITECTURE],
];

/** `text` with every citation this script can map rewritten; a citation it cannot map stays (and is listed). */
export const rewriteCitations = (text: string): string =>
  REWRITES.reduce(
    (current, [pattern, replacement]) =>
      typeof replacement === 'string'
        ? current.replace(pattern, replacement)
        : current.replace(pattern, (...args: unknown[]) => {
            // replace() passes the match, the groups (undefined when unmatched), then offset and input.
            const groups = args.slice(0, -2).map((value) => value as string);
            return replacement(...groups);
          }),
    text,
  );

/** Files that name the patterns on purpose: this script and its test. */
const SELF = new Set(['tools/lint/no-outside-docs.ts', 'test/tools/no-outside-docs.test.ts']);

const filesOf = (root: string): ReadonlyArray<string> =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter((path) => path !== '' && !SELF.has(path) && path !== 'package-lock.json');

const textOf = (path: string): string | undefined => {
  try {
    const text = readFileSync(path, 'utf8');
    return text.includes('\0') ? undefined : text;
  } catch {
    return undefined; // listed but absent (deleted in the work tree): nothing to check
  }
};

const main = (argv: ReadonlyArray<string>): number => {
  const fix = argv.includes('--fix');
  const unknown = argv.filter((arg) => arg !== '--fix');
  if (unknown.length > 0) {
    console.error(`no-outside-docs: unknown argument ${unknown.join(' ')}: use no argument (check) or --fix`);
    return 2;
  }
  const root = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
  let rewritten = 0;
  let left = 0;
  for (const file of filesOf(root)) {
    const path = join(root, file);
    const text = textOf(path);
    if (text === undefined) continue;
    const fixed = fix ? rewriteCitations(text) : text;
    if (fixed !== text) {
      writeFileSync(path, fixed);
      rewritten++;
    }
    for (const citation of citationsIn(fixed)) {
      console.error(`${file}:${citation.line}:${citation.column}: ${citation.text}`);
      left++;
    }
  }
  if (fix) console.log(`no-outside-docs: rewrote citations in ${rewritten} file(s)`);
  if (left > 0) {
    console.error(
      `${left} citation(s) of documents outside the repository: cite docs/behaviour.md §N or docs/architecture.md instead` +
        (fix ? ' (these could not be rewritten mechanically)' : ' (run with --fix to rewrite them)'),
    );
    return 1;
  }
  console.log('no-outside-docs: no citation of a document outside the repository');
  return 0;
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  process.exit(main(process.argv.slice(2)));
