/**
 * Where a periodic resync's time goes, beyond the bare plan: `node --expose-gc --import tsx
 * bench/resync-profile.ts [count] [time|cpu|heap|retained]` (default 10 000, time).
 * `time`: the runtime suite's resync row alone (bench/runtime.bench.ts `resync`: ratio to the bare
 * plan, medians of 3). `cpu` / `heap`: three resyncs of `count` in-sync Applications, the third
 * (warm) sampled by the inspector — CPU time or allocations, collected garbage included — then the
 * top functions by self and inclusive share printed, and the profile written to the temp directory
 * (open it in Chrome DevTools); `rounds`: nine resyncs and bare plans, unsampled, each round's times and
 * ratio printed (to compare two trees, whose spread a median of 3 hides; the 6th comes with the controller's relist);
 * `cpu` samples three bare plans of the same objects after it as well,
 * for a side-by-side reading of what the resync adds to the plan. `retained`: as `heap`, but only
 * what is still alive after a full collection at the end of the resync (what each resync leaves in
 * the old generation). Each timed phase starts from a collected heap, as bench:fleet times it. Under tsx most functions
 * show as `(anonymous)` in their file, and
 * tsx's `__name`/`set name` calls (esbuild keepNames, on every closure created) show up as cost a tsc
 * build does not have: for names and lines, profile the tsc output (`npx tsc -p tsconfig.json
 * --noEmit false --outDir <dir>` with `<dir>` in the worktree or `node_modules` linked beside it, then
 * `node --expose-gc <dir>/bench/resync-profile.js 10000 cpu`).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { flushMicrotasks } from '../adapters/memory/index.js';
import { barePlan, converged, resync } from './runtime.bench.js';

type CallFrame = { readonly functionName: string; readonly url: string; readonly lineNumber: number };
type CpuProfile = {
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly callFrame: CallFrame;
    readonly children?: ReadonlyArray<number>;
  }>;
  readonly samples: ReadonlyArray<number>;
  readonly timeDeltas: ReadonlyArray<number>;
};
type HeapNode = {
  readonly callFrame: CallFrame;
  readonly selfSize: number;
  readonly children: ReadonlyArray<HeapNode>;
};

const count = Number(process.argv[2] ?? 10_000);
const mode = process.argv[3] ?? 'time';
if (!Number.isInteger(count) || count <= 0 || !['time', 'rounds', 'cpu', 'heap', 'retained'].includes(mode)) {
  process.stderr.write('usage: bench/resync-profile.ts [count > 0] [time|rounds|cpu|heap|retained]\n');
  process.exit(2);
}

const collectGarbage = (): void => {
  (globalThis as { gc?: () => void }).gc?.();
};

const where = (frame: CallFrame): string =>
  `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^file:\/\/.*?\/(?=(app|core|adapters|bench|node_modules)\/)/, '') || '(native)'}:${frame.lineNumber + 1}`;

/** The `top` entries of `shares` (function → amount), as lines with their percentage of `total`. */
const report = (
  title: string,
  shares: ReadonlyMap<string, number>,
  total: number,
  unit: (amount: number) => string,
  top = 25,
): string =>
  [
    `${title}:`,
    ...[...shares]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, amount]) => `${unit(amount).padStart(10)} ${((100 * amount) / total).toFixed(1).padStart(5)}%  ${name}`,
      ),
  ].join('\n');

const add = (shares: Map<string, number>, key: string, amount: number): void => {
  shares.set(key, (shares.get(key) ?? 0) + amount);
};

/** Self and inclusive time per function; the inspector's own `Profiler.stop` call is left out. */
const cpuReport = (profile: CpuProfile): string => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const stack: string[] = [];
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current))
      stack.push(where(byId.get(current)!.callFrame));
    if (stack.some((name) => name.startsWith('post node:inspector'))) return;
    const micros = profile.timeDeltas[index] ?? 0;
    total += micros;
    add(self, stack[0]!, micros);
    for (const name of new Set(stack)) add(inclusive, name, micros);
  });
  const ms = (micros: number) => `${(micros / 1000).toFixed(1)} ms`;
  return [
    report(`self time (total ${ms(total)})`, self, total, ms),
    report('inclusive time', inclusive, total, ms),
  ].join('\n\n');
};

/** Self and inclusive bytes allocated per function. */
const heapReport = (head: HeapNode): string => {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, stack: ReadonlyArray<string>): void => {
    const name = where(node.callFrame);
    const path = stack.includes(name) ? stack : [...stack, name];
    total += node.selfSize;
    add(self, name, node.selfSize);
    for (const on of path) add(inclusive, on, node.selfSize);
    for (const child of node.children) walk(child, path);
  };
  walk(head, []);
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
  return [
    report(
      `self allocation (total ${mib(total)}, ${(total / count / 1024).toFixed(1)} KiB per reconcile)`,
      self,
      total,
      mib,
    ),
    report('inclusive allocation', inclusive, total, mib),
  ].join('\n\n');
};

if (mode === 'time') {
  console.log(JSON.stringify(await resync(count, (line) => process.stderr.write(`${line}\n`))));
} else {
  const resyncMs = 10 * 60_000;
  const { cluster, clock, controller, startedAt } = await converged(count, resyncMs);
  const planAll = await barePlan(cluster, new Date(clock.now()).toISOString());
  const session = new Session();
  session.connect();
  const rounds = mode === 'rounds' ? 9 : 3;
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    await clock.advance(startedAt + round * resyncMs - 1 - clock.now());
    while (!controller.idle) {
      await flushMicrotasks();
      await clock.advance(100);
    }
    const start = controller.reconcileCount;
    const sampled = round === 3 && mode !== 'rounds';
    // As bench:fleet times it (bench/fleet-contender.ts): from a collected heap, each phase paying for its own garbage
    // only (before sampling starts).
    collectGarbage();
    if (sampled && mode === 'cpu') {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    if (sampled && (mode === 'heap' || mode === 'retained'))
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        // `retained`: only what is still alive when the resync ends (what each resync adds to the old generation).
        includeObjectsCollectedByMajorGC: mode === 'heap',
        includeObjectsCollectedByMinorGC: mode === 'heap',
      });
    const t0 = performance.now();
    while (!(controller.reconcileCount >= start + count && controller.idle)) {
      await flushMicrotasks();
      if (controller.idle) await clock.advance(100);
    }
    const elapsed = performance.now() - t0;
    let text = '';
    if (sampled) {
      if (mode === 'retained') collectGarbage();
      const file = join(tmpdir(), `kreconcile-resync-${count}.${mode === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
      const { profile } =
        mode === 'cpu' ? await session.post('Profiler.stop') : await session.post('HeapProfiler.stopSampling');
      writeFileSync(file, JSON.stringify(profile));
      text = `${mode === 'cpu' ? cpuReport(profile as unknown as CpuProfile) : heapReport((profile as unknown as { head: HeapNode }).head)}\nprofile: ${file}`;
    }
    if (sampled && mode === 'cpu') {
      // The bare plan sampled the same way, for a side-by-side reading of what the resync adds.
      await session.post('Profiler.start');
      for (let i = 0; i < 3; i++) planAll();
      const { profile } = await session.post('Profiler.stop');
      const file = join(tmpdir(), `kreconcile-bare-plan-${count}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      text += `\n\nbare plan, 3 runs:\n${cpuReport(profile as unknown as CpuProfile)}\nprofile: ${file}`;
    }
    collectGarbage();
    const t1 = performance.now();
    planAll();
    const bareMs = performance.now() - t1;
    ratios.push(elapsed / bareMs);
    console.log(
      JSON.stringify({
        count,
        round,
        resyncMs: elapsed,
        bareMs,
        ratio: elapsed / bareMs,
        reconciles: controller.reconcileCount - start,
      }),
    );
    if (text !== '') console.log(text);
  }
  session.disconnect();
  const sorted = ratios.toSorted((a, b) => a - b);
  console.log(`median ratio of ${sorted.length} rounds: ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)}`);
  await controller.stop(0);
}
