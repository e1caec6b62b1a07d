/**
 * The rows of the last `npm run bench:fleet` runs on this machine (`bench/results/fleet-latest.json`,
 * `argo-latest.json`), for `npm run bench` to print beside its own. The fleet is not rerun there: at
 * QPS 50 one round at N = 1 000 takes about 13 minutes, more than CI gives the whole benchmark
 * (docs/performance.md). A carried row keeps its goal but says when it was measured, and a missed
 * goal in it does not fail this run: this run did not measure it.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { existsSync, readFileSync } from 'node:fs';
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
  { file: 'fleet-latest.json', command: 'npm run bench:fleet' },
  { file: 'argo-latest.json', command: 'npm run bench:fleet -- --argo' },
] as const;

/** The rows of one result file; none when it is absent, unreadable or not a result file. */
const rowsOf = (path: string, command: string): ReadonlyArray<CarriedRow> | undefined => {
  if (!existsSync(path)) return undefined;
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

/** The last fleet and Argo-shape rows under `resultsDir`. */
export const carriedRows = (resultsDir: string): Carried => {
  const read = SUITES.map((suite) => ({ suite, rows: rowsOf(join(resultsDir, suite.file), suite.command) }));
  return {
    rows: read.flatMap(({ rows }) => rows ?? []),
    missing: read.filter(({ rows }) => rows === undefined).map(({ suite }) => suite.command),
  };
};
