/** `npm run bench`: runs every benchmark suite, prints a table and writes JSON under bench/results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreBenchmarks } from './core.bench.js';
import type { Row } from './measure.js';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const sizes = quick ? [1, 100] : [1, 100, 1000, 10000];

const format = (value: number | undefined, digits = 3): string => (value === undefined ? '' : value.toPrecision(digits));

const printTable = (rows: ReadonlyArray<Row>): void => {
  const header = ['suite', 'case', 'median ms', 'µs/resource', 'baseline', 'baseline ms', 'ratio', 'memory KiB'];
  const lines = rows.map((r) => [r.suite, r.case, format(r.valueMs), format(r.perItemUs), r.baselineName ?? '', format(r.baselineMs), format(r.ratio), r.memoryBytes === undefined ? '' : (r.memoryBytes / 1024).toFixed(0)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const show = (cells: ReadonlyArray<string>): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(show(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(show(line));
};

const main = (): void => {
  const rows: Row[] = [];
  for (const size of sizes) {
    process.stderr.write(`core: planning ${size} resources…\n`);
    rows.push(...coreBenchmarks([size]));
  }
  printTable(rows);
  const out = join(here, 'results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ node: process.version, date: new Date().toISOString(), rows }, null, 2));
  writeFileSync(join(here, 'results', 'latest.json'), JSON.stringify({ node: process.version, date: new Date().toISOString(), rows }, null, 2));
  console.log(`\nwrote ${out}`);
};

main();
