/**
 * One `kreconcile` run in a process of its own, for the CLI growth rows (bench/cli-growth.ts):
 * `node --import tsx bench/cli-run.ts <result.json> <application.json|-> <kreconcile arguments…>`.
 *
 * The modules are loaded before the clock starts (their cost does not grow with the input), then
 * the CLI runs exactly as the executable does (process-main.ts, stdout wherever the parent sent
 * it). Written to <result.json>: the wall time of the run, this process's peak RSS (the CLI's own
 * memory, not the bench's), the exit code and, when an Application file is named, the time of a
 * bare fresh `plan` of the same Application in the same process: what the CLI adds around the planner.
 */
import * as E from 'fp-ts/lib/Either.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [resultFile, applicationFile, ...cliArguments] = process.argv.slice(2);
if (resultFile === undefined || applicationFile === undefined) {
  process.stderr.write('usage: cli-run.ts <result.json> <application.json|-> <kreconcile arguments…>\n');
  process.exit(2);
}

// Loaded before timing: the composition root's own imports, which process-main would load on the clock.
await import('../app/cli/main.js');
await import('../app/cli/live/kubernetes.js');
await import('../adapters/schemas/builtin-schemas.js');
const core = await import('../core/internal.js');

process.argv = [process.argv[0] as string, 'kreconcile', ...cliArguments];
const started = performance.now();
const cpuBefore = process.cpuUsage();
await import('../app/cli/process-main.js'); // runs the CLI to its exit code (top-level await)
const cliMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
/** CPU time of the run (user + system): on a shared machine, what the run itself cost. */
const cpuMs = (cpu.user + cpu.system) / 1000;
const exitCode = Number(process.exitCode ?? 0);
const maxRssBytes = process.resourceUsage().maxRSS * 1024;

/**
 * A fresh plan (no memo, a new copy of the Application each time) of the Application in `file`
 * against an empty cluster, as the CLI plans it: the median of three, after the CLI warmed the same code.
 */
const barePlanMs = (file: string): number | undefined => {
  const text = readFileSync(file, 'utf8');
  const times = [0, 1, 2].map(() => {
    const decoded = core.decodeApplication(JSON.parse(text));
    if (E.isLeft(decoded))
      throw new Error(`${file}: not an Application: ${decoded.left.map(core.showIssue).join('; ')}`);
    const t0 = performance.now();
    core.plan({ application: decoded.right, live: [], scopes: core.builtinScopes, now: '2026-11-01T10:00:00Z' });
    return performance.now() - t0;
  });
  return times.sort((a, b) => a - b)[1];
};

const planMs = applicationFile === '-' ? undefined : barePlanMs(applicationFile);
writeFileSync(resultFile, JSON.stringify({ cliMs, cpuMs, maxRssBytes, exitCode, planMs }));
process.exit(0);
