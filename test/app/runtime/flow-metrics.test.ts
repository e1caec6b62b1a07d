/** The flow-control metrics read the adapter's limiter: queued and in-flight now, and each request's wait. */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createFlowControl } from '../../../adapters/kubernetes/flow-control.js';
import { ManualClock, flushMicrotasks } from '../../../adapters/memory/index.js';
import { registerFlowControlMetrics } from '../../../app/runtime/flow-metrics.js';

const sample = async (registry: Registry, name: string): Promise<string> =>
  (await registry.metrics())
    .split('\n')
    .filter((line) => line.startsWith(name))
    .join('\n');

describe('flow-control metrics', () => {
  it('show requests queued behind the limiter, those in flight, and how long each waited', async () => {
    const registry = new Registry();
    const metrics = registerFlowControlMetrics(registry);
    expect(await sample(registry, 'kreconcile_client_requests_queued')).toBe('kreconcile_client_requests_queued 0');
    const clock = new ManualClock();
    const flow = createFlowControl({ qps: 1, burst: 1, maxInFlight: 10, clock, onWait: metrics.observeWait });
    metrics.readFrom(flow.stats);
    let answer: (() => void) | undefined;
    const first = flow.request(() => new Promise<void>((resolve) => (answer = resolve)));
    const second = flow.request(() => Promise.resolve());
    await flushMicrotasks();
    expect(await sample(registry, 'kreconcile_client_requests_queued')).toBe('kreconcile_client_requests_queued 1');
    expect(await sample(registry, 'kreconcile_client_requests_in_flight')).toBe(
      'kreconcile_client_requests_in_flight 1',
    );
    await clock.advance(1_000);
    await second;
    answer?.();
    await first;
    const waits = await sample(registry, 'kreconcile_client_rate_limiter_wait_seconds');
    expect(waits).toContain('kreconcile_client_rate_limiter_wait_seconds_count 2');
    expect(waits).toContain('kreconcile_client_rate_limiter_wait_seconds_sum 1');
    expect(waits).toContain('kreconcile_client_rate_limiter_wait_seconds_bucket{le="0.5"} 1');
  });
});
