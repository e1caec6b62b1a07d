/**
 * The operator process: controller + optional leader election + /healthz, /readyz, /metrics.
 * `app/cli` builds it from flags; embedders call `startOperator` directly.
 */
import { createServer, type Server } from 'node:http';
import type { Clock, Cluster, ScopeTable } from '../../core/index.js';
import type { ReconcileResult } from '../reconcile/reconcile-application.js';
import { Controller } from './controller.js';
import { LeaderElector } from './leader-election.js';
import { silentLogger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';

export type OperatorOptions = {
  readonly cluster: Cluster;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly scopes?: ScopeTable;
  readonly workers?: number;
  readonly resyncMs?: number;
  readonly namespace?: string;
  readonly leaderElection?: { readonly namespace: string; readonly name: string; readonly identity: string; readonly leaseDurationMs?: number; readonly retryPeriodMs?: number };
  /** Serve /healthz, /readyz and /metrics here (port 0 picks a free one). */
  readonly listen?: { readonly host: string; readonly port: number };
  readonly onReconciled?: (key: string, result: ReconcileResult) => void;
  /** Leadership was lost (not released): the CLI exits so a fresh process starts clean. */
  readonly onLostLeadership?: () => void;
};

export type Operator = {
  readonly controller: Controller;
  readonly metrics: Metrics;
  /** Where the HTTP endpoints listen, when enabled. */
  readonly address?: { readonly host: string; readonly port: number };
  isLeader(): boolean;
  /** Graceful stop: no new work, in-flight reconciles finish within `deadlineMs`, lease released. */
  stop(deadlineMs?: number): Promise<boolean>;
};

export const startOperator = async (options: OperatorOptions): Promise<Operator> => {
  const logger = options.logger ?? silentLogger;
  const metrics = options.metrics ?? createMetrics();
  const controller = new Controller({ ...options, logger, metrics });
  let ready = false;
  let stopping = false;
  const elector = options.leaderElection === undefined ? undefined : new LeaderElector({
    ...options.leaderElection, cluster: options.cluster, clock: options.clock, logger,
    onStartedLeading: () => { metrics.leader.set(1); void controller.start().then(() => { ready = true; }); },
    onStoppedLeading: () => {
      metrics.leader.set(0);
      void controller.stop();
      if (!stopping) options.onLostLeadership?.();
    },
  });
  if (elector === undefined) { await controller.start(); ready = true; } else { ready = true; elector.start(); }
  const server = options.listen === undefined ? undefined : await serve(options.listen, metrics, () => ready && !stopping);
  const address = server === undefined ? undefined : addressOf(server, options.listen?.host ?? '127.0.0.1');
  return {
    controller, metrics,
    ...(address === undefined ? {} : { address }),
    isLeader: () => elector?.isLeader ?? true,
    stop: async (deadlineMs = 30_000) => {
      stopping = true;
      const finished = await controller.stop(deadlineMs);
      await elector?.stop();
      await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
      return finished;
    },
  };
};

const serve = (listen: { host: string; port: number }, metrics: Metrics, isReady: () => boolean): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (path === '/healthz') { response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); return; }
      if (path === '/readyz') { const ok = isReady(); response.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'not ready'); return; }
      if (path === '/metrics') {
        void metrics.registry.metrics().then((text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text));
        return;
      }
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve(server));
  });

const addressOf = (server: Server, host: string): { host: string; port: number } => {
  const address = server.address();
  return { host, port: typeof address === 'object' && address !== null ? address.port : 0 };
};
