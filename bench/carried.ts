/**
 * The rows of the last `npm run bench:fleet` runs on this machine (`bench/results/fleet-*.json`,
 * `argo-*.json`), for `npm run bench` to print beside its own. Each case comes from the newest run
 * that measured it: a run of one size or one QPS does not hide the other sizes' rows. The fleet is not rerun there: at
 * QPS 50 one round at N = 1 000 takes about 13 minutes, more than CI gives the whole benchmark
 * (docs/performance.md). A carried row keeps its goal but says when it was measured, and a missed
 * goal in it does not fail this run: this run did not measure it.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Row } from './measure.js';

/** What a carried row needs; the rest of a fleet row (CPU, RSS, rounds) stays in its own file. */
const FleetRow = t.intersection([
  t.type({ suite: t.string, case: t.string }),
  t.partial({
    valueMs: t.number,
    baselineName: t.string,
    baselineMs: t.number,
    ratio: t.number,
    memoryBytes: t.number,
    goal: t.string,
    goalMet: t.boolean,
  }),
]);
const FleetFile = t.type({ date: t.string, rows: t.array(t.unknown) });

export type CarriedRow = Row & { readonly measuredAt: string; readonly command: string };

export type Carried = {
  readonly rows: ReadonlyArray<CarriedRow>;
  /** The suites with no file on this machine yet, with the command that measures them. */
  readonly missing: ReadonlyArray<string>;
};

const SUITES = [
  { prefix: 'fleet', command: 'npm run bench:fleet' },
  { prefix: 'argo', command: 'npm run bench:fleet -- --argo' },
] as const;

/** Result files older than the newest this many of a suite are not read. */
const FILES_READ = 100;

/** The rows of one result file; none when it is unreadable or not a result file. */
const rowsOf = (path: string, command: string): ReadonlyArray<CarriedRow> | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined; /* a damaged earlier file is no reason to lose this run's table */
  }
  const file = FleetFile.decode(parsed);
  if (E.isLeft(file)) return undefined;
  const measuredAt = file.right.date;
  return file.right.rows.flatMap((raw) => {
    const row = FleetRow.decode(raw);
    return E.isRight(row) ? [{ ...row.right, measuredAt, command }] : [];
  });
};

/** `fleet-latest.json` or `fleet-2026-11-26T18-12-24-138Z.json`, not another suite's (`fleet-memory-…`). */
const resultFile = (prefix: string): RegExp =>
  new RegExp(`^${prefix}-(?:latest|\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z)\\.json$`);

/** Each case of one suite from the newest file that has it; undefined when no file of the suite reads. */
const newestRows = (resultsDir: string, prefix: string, command: string): ReadonlyArray<CarriedRow> | undefined => {
  const names = existsSync(resultsDir) ? readdirSync(resultsDir).filter((name) => resultFile(prefix).test(name)) : [];
  const files = names
    .map((name) => rowsOf(join(resultsDir, name), command))
    .filter((rows): rows is ReadonlyArray<CarriedRow> => rows !== undefined);
  if (files.length === 0) return undefined;
  const newestFirst = files
    .filter((rows) => rows.length > 0)
    .sort((a, b) => (b[0]?.measuredAt ?? '').localeCompare(a[0]?.measuredAt ?? ''))
    .slice(0, FILES_READ);
  const byCase = new Map<string, CarriedRow>();
  for (const rows of newestFirst) for (const row of rows) if (!byCase.has(row.case)) byCase.set(row.case, row);
  return [...byCase.values()];
};

/** The last fleet and Argo-shape rows under `resultsDir`. */
export const carriedRows = (resultsDir: string): Carried => {
  const read = SUITES.map((suite) => ({ suite, rows: newestRows(resultsDir, suite.prefix, suite.command) }));
  return {
    rows: read.flatMap(({ rows }) => rows ?? []),
    missing: read.filter(({ rows }) => rows === undefined).map(({ suite }) => suite.command),
  };
};
