/**
 * `kreconcile run --progress-status-after`: how long a new Application's first progress status is
 * held (docs/behaviour.md §5, "First status"). A bad value is one line before anything starts; a
 * good one reaches the operator: with it, a child never ready gets its status when the grace ends
 * (a second progress line); with 0 the first reconcile writes it and nothing follows.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runCli } from './support/run-cli.js';

let dir: string;

// A bare Pod is never ready on the in-memory cluster (no kubelet): its Application waits for readiness.
const pending = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: pending
  namespace: smoke
spec:
  manifest:
    - apiVersion: v1
      kind: Pod
      metadata:
        name: worker
      spec:
        containers:
          - name: main
            image: busybox:1.36
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kreconcile-progress-status-'));
  await writeFile(join(dir, 'pending.yaml'), pending);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('kreconcile run --progress-status-after', () => {
  it.each([
    ['5x', 'error: --progress-status-after 5x: expected a duration such as 500ms, 30s, 5m or 1h'],
    ['-1s', 'error: --progress-status-after -1s: expected a duration such as 500ms, 30s, 5m or 1h'],
    [
      '2m',
      'error: --progress-status-after 2m: at most 1m (a new Application shows no status while its first one is held); 0 writes it at once',
    ],
  ])('refuses %s in one line, before anything starts', async (value, message) => {
    const result = await runCli(['run', '--progress-status-after', value, '--kubeconfig', join(dir, 'nope')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(linesOf(result.stderr)).toEqual([message]);
  });

  /** The progress lines of the Application while `run --memory` waits 4 s for a readiness that never comes. */
  const progressWith = async (value: string): Promise<ReadonlyArray<string>> => {
    const result = await runCli(
      [
        'run',
        '--memory',
        '-f',
        join(dir, 'pending.yaml'),
        '--exit-when-converged',
        '--timeout',
        '4s',
        '--log-level',
        'error',
        '--progress-status-after',
        value,
      ],
      { env: { NO_COLOR: '1' } },
    );
    expect(result.code).toBe(1);
    return linesOf(result.stdout).filter((line) => line.includes('smoke/pending Reconciling'));
  };

  it('reaches the operator: held, the status is written when the grace ends; with 0, at the first reconcile', async () => {
    // 2 s: the creation time is whole seconds, so the hold lasts more than 1 s and ends well within the 4 s.
    expect(await progressWith('2s')).toHaveLength(2);
    expect(await progressWith('0')).toHaveLength(1);
  }, 30_000);
});
