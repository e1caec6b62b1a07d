/**
 * Only the operator (`kreconcile run`) sizes its V8 heap for a long-running process; short
 * commands keep V8's defaults (app/cli/operator-heap.ts).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { operatorFlagsToSet, OPERATOR_V8_FLAGS, runsOperator } from '../../app/cli/operator-heap.js';

describe('the operator heap settings', () => {
  it('apply to `run` only, wherever global options put it', () => {
    expect(runsOperator(['run', '--memory', '-f', 'app.yaml'])).toBe(true);
    expect(runsOperator(['--no-color', 'run'])).toBe(true);
    expect(runsOperator(['plan', '-f', 'run'])).toBe(false);
    expect(runsOperator(['validate'])).toBe(false);
    expect(runsOperator(['--help'])).toBe(false);
    expect(runsOperator([])).toBe(false);
  });

  it("leave a flag the user gave Node (execArgv, NODE_OPTIONS) to the user's choice", () => {
    expect(operatorFlagsToSet([])).toEqual(OPERATOR_V8_FLAGS);
    expect(operatorFlagsToSet(['--import', 'tsx', '--max-old-space-size=512'])).toEqual(OPERATOR_V8_FLAGS);
    expect(operatorFlagsToSet(['--no-optimize-for-size'])).toEqual([]);
    expect(operatorFlagsToSet(['--optimize_for_size'])).toEqual([]);
  });

  it('take effect when set by the running process', () => {
    // A burst of parsed answers, most of them garbage at once, over a live set that keeps growing
    // (a cold start's lists and writes): with the flags set at start, as kreconcile.ts does, V8 keeps
    // a far smaller heap than with its defaults (about 30 against 96 MiB here).
    const script = `
      import { tuneOperatorHeap } from ${JSON.stringify(new URL('../../app/cli/operator-heap.ts', import.meta.url).href)};
      if (process.argv[1] === 'tuned') tuneOperatorHeap();
      const live = new Map();
      let peak = 0;
      for (let i = 0; i < 20000; i++) {
        const text = JSON.stringify({ name: 'object-' + i, data: Array.from({ length: 20 }, (_, k) => 'v'.repeat(50) + k) });
        const copies = Array.from({ length: 5 }, () => JSON.parse(text));
        live.set(i % 6000, copies[4]);
        if (i % 500 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
      }
      console.log(peak);
    `;
    const peakHeap = (mode: string): number => {
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, mode], {
        encoding: 'utf8',
      });
      if (child.status !== 0) throw new Error(child.stderr);
      return Number(child.stdout.trim());
    };
    expect(peakHeap('tuned')).toBeLessThan(peakHeap('defaults') / 1.5);
  }, 60_000);
});
