import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { carriedRows } from '../../bench/carried.js';

const resultsDir = (files: Record<string, string>): string => {
  const dir = mkdtempSync(join(tmpdir(), 'kreconcile-bench-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
};

const fleetRow = {
  suite: 'fleet',
  case: 'kreconcile ÷ direct creates, 300 Applications × 4 objects',
  valueMs: 54_800,
  ratio: 2.48,
  baselineName: 'direct creates',
  goal: 'ratio ≤ 1.6',
  goalMet: false,
};

describe('npm run bench carries the last fleet rows', () => {
  it('keeps each row with its goal, its verdict and the day it was measured', () => {
    const dir = resultsDir({ 'fleet-latest.json': JSON.stringify({ date: '2026-11-26T15:41:37Z', rows: [fleetRow] }) });
    const carried = carriedRows(dir);
    expect(carried.rows).toEqual([{ ...fleetRow, measuredAt: '2026-11-26T15:41:37Z', command: 'npm run bench:fleet' }]);
    expect(carried.missing).toEqual(['npm run bench:fleet -- --argo']);
  });

  it('names both commands when nothing was measured on this machine', () => {
    expect(carriedRows(resultsDir({}))).toEqual({
      rows: [],
      missing: ['npm run bench:fleet', 'npm run bench:fleet -- --argo'],
    });
  });

  it('skips a damaged file and rows that do not decode, without losing the others', () => {
    const dir = resultsDir({
      'fleet-latest.json': '{"date": "2026-11-26", "rows": [',
      'argo-latest.json': JSON.stringify({
        date: '2026-11-26T17:00:00Z',
        rows: [
          { suite: 'argo', case: 42 },
          { ...fleetRow, suite: 'argo', ratio: 'fast' },
          { ...fleetRow, suite: 'argo' },
        ],
      }),
    });
    const carried = carriedRows(dir);
    expect(carried.rows.map((row) => row.suite)).toEqual(['argo']);
    expect(carried.missing).toEqual(['npm run bench:fleet']);
  });

  it('takes each case from the newest run that measured it, so a run of one QPS keeps the other QPS row', () => {
    const argoRow = (qps: number, valueMs: number) => ({
      suite: 'argo',
      case: `10000 Applications, --qps ${qps}`,
      valueMs,
      goal: '< 180000 ms',
      goalMet: valueMs < 180_000,
    });
    const older = { date: '2026-11-26T18:33:53.762Z', rows: [argoRow(500, 131_000), argoRow(50, 900_000)] };
    const newer = { date: '2026-11-26T20:10:00.000Z', rows: [argoRow(50, 820_000)] };
    const dir = resultsDir({
      'argo-2026-11-26T18-33-53-762Z.json': JSON.stringify(older),
      'argo-2026-11-26T20-10-00-000Z.json': JSON.stringify(newer),
      'argo-latest.json': JSON.stringify(newer),
      'fleet-memory-latest.json': JSON.stringify({ date: '2026-11-27T00:00:00Z', rows: [fleetRow] }),
    });
    const carried = carriedRows(dir);
    expect(carried.rows.map((row) => [row.case, row.valueMs, row.measuredAt])).toEqual([
      ['10000 Applications, --qps 50', 820_000, '2026-11-26T20:10:00.000Z'],
      ['10000 Applications, --qps 500', 131_000, '2026-11-26T18:33:53.762Z'],
    ]);
    expect(carried.missing).toEqual(['npm run bench:fleet']);
  });
});
