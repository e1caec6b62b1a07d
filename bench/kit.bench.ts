/**
 * The kit's time to find a planted bug (issue 39): for each controller of examples/kit run
 * unchanged under checkController, the real time to the first failing run and to the shrunk
 * report, from the report's own `search:` line and the wall clock of the whole check.
 */
import { fileURLToPath } from 'node:url';
import {
  checkController,
  ConvergenceFailure,
  type ControllerCheckOptions,
  type FaultProfile,
} from '../app/testing/index.js';
import { converged, setup, worldArbitrary, type World } from '../test/app/testing/greeting-world.js';
import { flakySecretReads, secretSetup, secretsConverged, secretWorld } from '../test/app/testing/secret-world.js';
import type { Row } from './measure.js';

const example = (file: string): string => fileURLToPath(new URL(`../examples/kit/${file}`, import.meta.url));

const flakyWrites: FaultProfile = {
  errors: [{ rate: 0.3, tag: 'Internal', code: 500, verbs: ['patch'], message: 'etcdserver: request timed out' }],
};

/** The check's failure report and its wall time; a check that passes is a broken bench. */
const timed = async (
  name: string,
  check: () => Promise<void>,
): Promise<{ readonly message: string; readonly ms: number }> => {
  const started = performance.now();
  const message = await check().then(
    () => {
      throw new Error(`bench ${name}: the kit found no failure (the planted bug should fail it)`);
    },
    (error: unknown) => (error instanceof ConvergenceFailure ? error.message : `${String(error)}`),
  );
  return { message, ms: performance.now() - started };
};

const rowsOf = (name: string, mode: string, result: { readonly message: string; readonly ms: number }): Row[] => {
  const first = /first failure after (\d+\.\d+) s \(run (\d+)\)/.exec(result.message);
  const shrinkRuns = /shrinking: (\d+) runs/.exec(result.message)?.[1];
  return [
    {
      suite: 'kit',
      case: `${name} (${mode}): time to first failure`,
      valueMs: first === null ? undefined : Number(first[1]) * 1000,
      firstFailingRun: first === null ? undefined : Number(first[2]),
    },
    {
      suite: 'kit',
      case: `${name} (${mode}): time to shrunk report`,
      valueMs: result.ms,
      shrinkRuns: Number(shrinkRuns),
    },
  ];
};

/** A check of the Greeting world (test/app/testing/greeting-world.ts) against `controller`. */
const greetings = (
  controller: ControllerCheckOptions<World>['controller'],
  options: Partial<ControllerCheckOptions<World>>,
): Promise<void> => checkController({ world: worldArbitrary, setup, converged, controller, ...options });

export const kitBenchmarks = async (log: (line: string) => void): Promise<Row[]> => {
  const framework = example('framework-controller.mjs');
  const debounce = await timed('debounce', () =>
    greetings({ module: example('debounce-controller.mjs'), process }, { numRuns: 20, seed: 7, faultyMs: 0 }),
  );
  log(`kit: debounce-controller in ${Math.round(debounce.ms)} ms`);
  // the same controller as a process: real time, so the first failure waits out the settle period
  const debounceProcess = await timed('debounce as a process', () =>
    greetings(
      { command: [process.execPath, example('debounce-controller.mjs')] },
      { numRuns: 4, seed: 7, faultyMs: 0, settleMs: 1_000 },
    ),
  );
  log(`kit: debounce-controller as a process in ${Math.round(debounceProcess.ms)} ms`);
  const copier = await timed('secret-copier', () =>
    checkController({
      world: secretWorld,
      setup: secretSetup,
      converged: secretsConverged,
      controller: { module: example('secret-copier.mjs'), process },
      faults: flakySecretReads,
      numRuns: 20,
      seed: 3,
    }),
  );
  log(`kit: secret-copier in ${Math.round(copier.ms)} ms`);
  const asProcess = await timed('framework', () =>
    greetings(
      { command: [process.execPath, framework] },
      { faults: flakyWrites, numRuns: 3, seed: 5, settleMs: 1_000 },
    ),
  );
  log(`kit: framework-controller in ${Math.round(asProcess.ms)} ms`);
  // the same controller in process: its unhandled rejection is caught as its crash, on the kit's clock
  const inProcess = await timed('framework in process', () =>
    greetings({ module: framework, process }, { faults: flakyWrites, numRuns: 20, seed: 5 }),
  );
  log(`kit: framework-controller in process in ${Math.round(inProcess.ms)} ms`);
  return [
    ...rowsOf('debounce-controller', 'in process', debounce),
    ...rowsOf('debounce-controller', 'process', debounceProcess),
    ...rowsOf('secret-copier', 'in process', copier),
    ...rowsOf('framework-controller', 'process', asProcess),
    ...rowsOf('framework-controller', 'in process', inProcess),
  ];
};
