/**
 * Metrics of client-side flow control (the Kubernetes adapter's shared token bucket and in-flight
 * bound): how many requests wait now, how many are unanswered, and how long each waited before it
 * was sent. A wait histogram whose upper buckets fill means `--qps`/`--burst` hold the operator back.
 */
import { Gauge, Histogram, type Registry } from 'prom-client';

/** What the adapter reports (structurally `KubernetesCluster['flowControl']['stats']`). */
export type FlowControlSource = () => { readonly queued: number; readonly inFlight: number };

export type FlowControlMetrics = {
  /** Give to the adapter's `flowControl.onWait`. */
  readonly observeWait: (waitedMs: number) => void;
  /** Starts reading queued and in-flight counts from the adapter, once it exists. */
  readonly readFrom: (source: FlowControlSource) => void;
};

export const registerFlowControlMetrics = (registry: Registry): FlowControlMetrics => {
  let source: FlowControlSource | undefined;
  const registers = [registry];
  new Gauge({
    name: 'kreconcile_client_requests_queued',
    help: 'API requests (and watch starts) waiting for a client rate-limiter token or an in-flight slot.',
    registers,
    collect() {
      this.set(source?.().queued ?? 0);
    },
  });
  new Gauge({
    name: 'kreconcile_client_requests_in_flight',
    help: 'API requests sent and not yet answered (watches excluded).',
    registers,
    collect() {
      this.set(source?.().inFlight ?? 0);
    },
  });
  const waits = new Histogram({
    name: 'kreconcile_client_rate_limiter_wait_seconds',
    help: 'Time an API request waited for client flow control (--qps, --burst, --max-in-flight) before it was sent.',
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30],
    registers,
  });
  return {
    observeWait: (waitedMs) => waits.observe(waitedMs / 1_000),
    readFrom: (read) => {
      source = read;
    },
  };
};
