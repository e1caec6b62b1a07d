/** `npm run bench`: runs every benchmark suite, prints a table and writes JSON under bench/results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreBenchmarks } from './core.bench.js';
import { runtimeBenchmarks } from './runtime.bench.js';
import { apiServerBenchmarks } from './apiserver.bench.js';
import type { Row } from './measure.js';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const sizes = quick ? [1, 100] : [1, 100, 1000, 10000];

const format = (value: number | undefined, digits = 3): string => (value === undefined ? '' : value.toPrecision(digits));

const printTable = (rows: ReadonlyArray<Row>): void => {
  const header = ['suite', 'case', 'value', 'baseline', 'baseline value', 'ratio', 'memory KiB'];
  const value = (r: Row): string => (r.valueMs !== undefined ? `${format(r.valueMs)} ms` : r.value !== undefined ? String(r.value) : r.bytesPerObject !== undefined ? `${format(r.bytesPerObject as number)} B/object` : '');
  const baseline = (r: Row): string => (r.baselineMs !== undefined ? `${format(r.baselineMs)} ms` : r.baseline !== undefined ? String(r.baseline) : r.jsonBytesPerObject !== undefined ? `${format(r.jsonBytesPerObject as number)} B/object` : '');
  const lines = rows.map((r) => [r.suite, r.case, value(r), r.baselineName ?? '', baseline(r), format(r.ratio), r.memoryBytes === undefined ? '' : (r.memoryBytes / 1024).toFixed(0)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const show = (cells: ReadonlyArray<string>): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(show(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(show(line));
};

const main = async (): Promise<void> => {
  const rows: Row[] = [];
  for (const size of sizes) {
    process.stderr.write(`core: planning ${size} resources…\n`);
    rows.push(...coreBenchmarks([size]));
  }
  rows.push(...await runtimeBenchmarks(quick ? [100] : [1000, 10000], (line) => process.stderr.write(`${line}\n`)));
  if (!process.argv.includes('--no-apiserver')) rows.push(...await apiServerBenchmarks(quick ? 10 : 100, (line) => process.stderr.write(`${line}\n`)));
  printTable(rows);
  const out = join(here, 'results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ node: process.version, date: new Date().toISOString(), rows }, null, 2));
  writeFileSync(join(here, 'results', 'latest.json'), JSON.stringify({ node: process.version, date: new Date().toISOString(), rows }, null, 2));
  console.log(`\nwrote ${out}`);
};

await main();
