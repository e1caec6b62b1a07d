/**
 * Secret values through the operator on the memory cluster (which folds `stringData` into `data`
 * as the API server does): a Secret written with `stringData` converges (Ready, no hot loop), and
 * no canary value — plaintext or base64 — reaches the status, an Event, a log line or a progress line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { progressLines } from '../../../app/cli/operate/progress.js';
import { PLAIN } from '../../../app/cli/style.js';
import type { Logger } from '../../../app/logging/logger.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import { base64Of, conditionOf, type Application, type Resource } from '../../../core/internal.js';
import { applicationOf } from '../hooks/support.js';
import { runUntil } from '../../support/operator-clock.js';

let operator: Operator | undefined;
afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

const DATA_CANARY = 'data-canary-3c9e1';
const STRING_CANARY = 'string-canary-8a4f2';
const DRIFT_CANARY = 'drift-canary-b6d03';
const CANARIES = [DATA_CANARY, STRING_CANARY, DRIFT_CANARY].flatMap((text) => [text, base64Of(text)]);

const recordingLogger = (lines: string[]): Logger => {
  const record = (level: string) => (fields: object, message: string) => {
    lines.push(`${level} ${message} ${JSON.stringify(fields)}`);
  };
  return { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
};

const secretOf = (cluster: MemoryCluster): Resource | undefined =>
  cluster.objects().find((o) => o.kind === 'Secret' && o.metadata.name === 'db');
const applicationIn = (cluster: MemoryCluster): Application | undefined =>
  cluster.objects().find((o) => o.kind === 'Application') as unknown as Application | undefined;
const readyOf = (cluster: MemoryCluster) => conditionOf(applicationIn(cluster)?.status?.conditions, 'Ready');

describe('Secrets through the operator (memory cluster)', () => {
  it('a Secret written with stringData converges, drift on its data is corrected, and no value leaks anywhere', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, workloads: true });
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
    const logs: string[] = [];
    const progress: string[] = [];
    let reconciles = 0;
    operator = await startOperator({
      cluster,
      clock,
      random: () => 0.5,
      workers: 1,
      logger: recordingLogger(logs),
      onReconciled: (key, result) => {
        reconciles++;
        progress.push(...progressLines(key, result, PLAIN, '00:00:00'));
      },
    });
    await cluster.create(
      applicationOf('shop', 'web', {
        manifest: [
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'db' },
            data: { password: base64Of(DATA_CANARY) },
            stringData: { token: STRING_CANARY },
          },
        ],
      }),
    )();
    await runUntil(clock, () => readyOf(cluster)?.status === 'True');
    expect(readyOf(cluster)?.status).toBe('True');
    expect(secretOf(cluster)?.data).toEqual({ password: base64Of(DATA_CANARY), token: base64Of(STRING_CANARY) });

    // Quiet: further time brings no more writes to the Secret and no hot loop.
    const settled = secretOf(cluster)?.metadata.resourceVersion;
    const before = reconciles;
    await runUntil(clock, () => false, 20_000);
    expect(secretOf(cluster)?.metadata.resourceVersion).toBe(settled);
    expect(conditionOf(applicationIn(cluster)?.status?.conditions, 'Stalled')?.status).toBe('False');
    expect(reconciles - before).toBeLessThan(5);

    // Another actor changes a value: the digests differ, the operator writes the desired value back.
    const live = secretOf(cluster) as Resource;
    await cluster.update({ ...live, data: { ...(live.data as object), token: base64Of(DRIFT_CANARY) } })();
    await runUntil(
      clock,
      () => (secretOf(cluster)?.data as Record<string, string> | undefined)?.token === base64Of(STRING_CANARY),
    );
    expect((secretOf(cluster)?.data as Record<string, string>).token).toBe(base64Of(STRING_CANARY));
    expect(progress.some((line) => line.includes('data.token: "(sensitive value) sha256:'))).toBe(true);

    const events = cluster.objects().filter((o) => o.kind === 'Event');
    expect(events.length).toBeGreaterThan(0);
    const exposed = [
      JSON.stringify(applicationIn(cluster)?.status),
      JSON.stringify(events),
      logs.join('\n'),
      progress.join('\n'),
    ];
    for (const place of exposed) for (const canary of CANARIES) expect(place).not.toContain(canary);
  });
});
