/**
 * drive() waits without spinning: a task blocked on real I/O (no timer on the clock) costs
 * little CPU, and a task blocked on the clock still completes as the clock moves.
 */
import { describe, expect, it } from 'vitest';
import { drive, ManualClock } from '../../../app/testing/index.js';

const realWait = (ms: number): Promise<string> => new Promise((resolve) => setTimeout(() => resolve('done'), ms));

describe('drive', () => {
  it('waits for a task blocked on real I/O without spinning a core', async () => {
    const clock = new ManualClock();
    const started = performance.now();
    const cpu = process.cpuUsage();
    expect(await drive(clock, realWait(400))).toBe('done');
    const used = process.cpuUsage(cpu);
    const elapsedMs = performance.now() - started;
    // a busy loop costs about elapsedMs of CPU; waiting costs a small fraction of it
    expect((used.user + used.system) / 1000).toBeLessThan(elapsedMs * 0.5);
  });

  it('moves the clock while the task waits on it', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    await drive(clock, clock.sleep(5_000));
    expect(clock.now() - start).toBeGreaterThanOrEqual(5_000);
  });

  it('rejects past its real-time bound, saying why', async () => {
    await expect(drive(new ManualClock(), realWait(500), { withinMs: 100 })).rejects.toThrow(
      /did not finish within 100 ms of real time/,
    );
  });
});
