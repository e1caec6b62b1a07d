/**
 * Sharding on a real API server (issue 14, "Scale past one replica"): operator replicas with
 * `--sharding lease` share 300 Applications through per-shard Leases. Every write is recorded
 * with the replica that sent it: no Application is ever written by two replicas at once, each
 * child is written once per change, and when a replica dies (its Leases not released) its
 * Applications converge again within the lease duration plus one resync. Prints throughput
 * (Applications converged per second from cold) with 1, 2 and 3 operator processes (`kreconcile
 * run --sharding lease`), and the CPU each used, which says what limits it on this machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { Controller } from '../../app/runtime/controller.js';
import { ShardLeases } from '../../app/runtime/sharding/shard-leases.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  getIn,
  shardOf,
  type Application,
  type Resource,
} from '../../core/internal.js';
import { applicationObject, conditionOf } from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { leaseVersionOf } from '../support/lease-version.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';
import { recordingSink, type RecordingSink } from '../support/recording-sink.js';
import { concurrentWrites, recordingCluster, type Write } from '../app/runtime/sharding-writes.js';

const APPLICATIONS = 300;
const SHARDS = 12;
const LEASE_MS = 8_000;
const RETRY_MS = 1_000;
/** A periodic resync well below the 10 min default, so "lease duration + one resync" is a bound worth testing. */
const RESYNC_MS = 30_000;
const WORKERS = 4;

type Replica = {
  readonly id: string;
  readonly leases: ShardLeases;
  readonly controller: Controller;
  /** Reconciles finished, with the time: `key`, `at`. */
  readonly reconciled: Array<{ readonly key: string; readonly at: number; readonly ok: boolean }>;
};

describeWithApiServer('sharding on a real API server: 300 Applications, replicas sharing per-shard Leases', (env) => {
  let admin: KubernetesCluster;
  const cleanups: Array<() => Promise<void>> = [];
  const running: Replica[] = [];
  const throughput = new Map<number | string, { seconds: number; perSecond: number; cpu: ReadonlyArray<number> }>();

  beforeAll(() => {
    admin = connect(env);
  });
  afterAll(async () => {
    for (const replica of running) {
      replica.leases.halt();
      await replica.controller.stop(5_000);
    }
    for (const cleanup of cleanups) await cleanup();
    const lines = [...throughput].map(
      ([n, t]) =>
        `  ${n}: ${APPLICATIONS} Applications converged from cold in ${t.seconds.toFixed(2)} s = ${t.perSecond.toFixed(1)}/s ${throughput.has(1) ? ` (${(t.perSecond / (throughput.get(1)?.perSecond ?? 1)).toFixed(2)}× one process)` : ''}; operator CPU ${t.cpu.map((c) => c.toFixed(1)).join(' + ')} s`,
    );
    if (lines.length > 0)
      process.stdout.write(
        `\nsharding throughput (processes; 2 cores shared with kube-apiserver and etcd):\n${lines.join('\n')}\n`,
      );
  });

  /** A replica as a separate process would run it: its own connection, Leases and Controller. */
  const startReplica = async (id: string, namespace: string, writes: Write[]): Promise<Replica> => {
    const cluster = connect(env);
    const leases = new ShardLeases({
      cluster,
      clock: realClock,
      monotonic: () => performance.now(),
      namespace,
      identity: id,
      shards: SHARDS,
      leaseDurationMs: LEASE_MS,
      retryPeriodMs: RETRY_MS,
    });
    const reconciled: Replica['reconciled'] = [];
    const controller = new Controller({
      cluster: recordingCluster(cluster, id, writes),
      clock: realClock,
      random: Math.random,
      workers: WORKERS,
      resyncMs: RESYNC_MS,
      namespace,
      planOptions: { readiness: 'existence' },
      events: false,
      shard: leases,
      onReconciled: (key, result) => reconciled.push({ key, at: Date.now(), ok: result._tag !== 'Failed' }),
    });
    const replica = { id, leases, controller, reconciled };
    running.push(replica);
    leases.start();
    await controller.start();
    return replica;
  };

  const createApplications = async (namespace: string): Promise<void> => {
    const names = Array.from({ length: APPLICATIONS }, (_, i) => `app-${i}`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(
        names.slice(i, i + 20).map((name) =>
          must(
            admin.create(
              applicationObject(namespace, name, [
                {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  metadata: { name: `${name}-config` },
                  data: { owner: name },
                },
              ]),
            ),
          ),
        ),
      );
    }
  };

  const readyCount = async (namespace: string): Promise<number> => {
    const list = await must(admin.list({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace }));
    return list.items.filter((item) => {
      const application = item as unknown as Application;
      return (
        conditionOf(application, 'Ready')?.status === 'True' &&
        application.status?.observedGeneration === application.metadata.generation
      );
    }).length;
  };

  const configMaps = async (namespace: string): Promise<ReadonlySet<string>> =>
    new Set(
      (await must(admin.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }))).items
        .map((item) => item.metadata.name)
        .filter((name) => name.startsWith('app-')),
    );

  /** Creates the Applications with no operator running, starts `n` replicas, and times convergence. */
  const coldStart = async (
    n: number,
  ): Promise<{ namespace: string; writes: Write[]; replicas: Replica[]; startedAt: number }> => {
    const { namespace, cleanup } = await freshNamespace(admin, `kr-e2e-shard${n}`);
    cleanups.push(cleanup);
    await createApplications(namespace);
    const writes: Write[] = [];
    const startedAt = performance.now();
    const cpuBefore = process.cpuUsage();
    const replicas = await Promise.all(
      Array.from({ length: n }, (_, i) => startReplica(`replica-${'abc'[i]}`, namespace, writes)),
    );
    await eventually(async () => expect(await readyCount(namespace)).toBe(APPLICATIONS), 120_000, 200);
    const seconds = (performance.now() - startedAt) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    throughput.set(`${n} in one process`, {
      seconds,
      perSecond: APPLICATIONS / seconds,
      cpu: [(cpu.user + cpu.system) / 1e6],
    });
    process.stdout.write(
      `\n${n} replica(s): ${replicas.map((r) => `${r.id} ${r.reconciled.length} reconciles (${r.reconciled.filter((e) => !e.ok).length} failed), ownership changed ${r.leases.ownershipChanges}×`).join('; ')}\n`,
    );
    return { namespace, writes, replicas, startedAt };
  };

  const stopAll = async (replicas: ReadonlyArray<Replica>): Promise<void> => {
    for (const replica of replicas) {
      await replica.controller.stop(5_000);
      await replica.leases.stop();
      running.splice(running.indexOf(replica), 1);
    }
  };

  /**
   * `kreconcile run --sharding lease` as a separate process (the CLI's default lease timings: 15 s, renewed every 2 s).
   */
  const spawnOperator = (
    id: string,
    namespace: string,
  ): { child: ChildProcess; acted: Set<string>; exited: Promise<number | null> } => {
    const child = spawn(
      process.execPath,
      [
        'app/cli/kreconcile.js',
        'run',
        '--kubeconfig',
        env.kubeconfigPath,
        '--watch-namespace',
        namespace,
        '--leader-election-namespace',
        namespace,
        '--shards',
        String(SHARDS),
        '--sharding',
        'lease',
        '--readiness',
        'existence',
        '--workers',
        String(WORKERS),
        '--resync',
        '30s',
        '--log-level',
        'warn',
      ],
      { env: { ...process.env, POD_NAME: id, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const acted = new Set<string>();
    // Progress lines name the Application an action was for: `HH:MM:SS <namespace>/<name> …`. Read
    // whole lines: a loaded machine delivers the pipe in chunks that can cut a line (and a name) in two.
    if (child.stdout !== null)
      createInterface({ input: child.stdout }).on('line', (line) => {
        for (const match of line.matchAll(new RegExp(`${namespace}/(app-\\d+)`, 'g'))) acted.add(match[1]!);
      });
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      if (/error|fatal/i.test(text)) process.stderr.write(`[${id}] ${text}`);
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, acted, exited };
  };

  /** CPU seconds (user + system) a process has used, from /proc (Linux). */
  const cpuSecondsOf = (pid: number | undefined): number => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return Number.NaN;
    }
  };

  /** Holders of the shard Leases now, by shard. */
  const shardHolders = async (namespace: string): Promise<ReadonlyMap<number, unknown>> => {
    const leases = await must(admin.list({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace }));
    return new Map(
      leases.items
        .filter((lease) => lease.metadata.name.startsWith('kreconcile-shard-'))
        .map((lease) => [Number(lease.metadata.name.slice('kreconcile-shard-'.length)), leaseVersionOf(lease).pod]),
    );
  };

  /**
   * Each of `shards` changed hands from `from` (dead, its Leases not released) to a survivor only once
   * `from`'s lease on it had expired, as the Lease versions `history` saw record it: the first
   * version by another holder counts one more transition and was acquired at least a lease duration
   * after `from`'s last renewal (survivors count it from when they first read that renewal, which is
   * after it was stamped; 1 ms for clock readings in whole ms). Returns each shard's acquireTime.
   */
  const expectTakenAfterExpiry = (
    history: RecordingSink,
    from: string,
    shards: ReadonlyArray<number>,
  ): ReadonlyMap<number, number> =>
    new Map(
      shards.map((shard) => {
        const versions = history.events.flatMap((event) =>
          event.type !== 'BOOKMARK' &&
          event.type !== 'DELETED' &&
          event.object.metadata.name === `kreconcile-shard-${shard}`
            ? [leaseVersionOf(event.object)]
            : [],
        );
        const taken = versions.findIndex(
          (version, i) => i > 0 && version.pod !== from && versions[i - 1]?.pod === from,
        );
        expect(taken, `shard ${shard} changed hands from ${from}`).toBeGreaterThan(0);
        const [last, first] = [versions[taken - 1]!, versions[taken]!];
        expect(first.transitions).toBe(last.transitions + 1);
        expect(first.acquireTime).toBeGreaterThanOrEqual(last.renewTime + last.leaseDurationMs - 1);
        return [shard, first.acquireTime];
      }),
    );

  /**
   * SIGKILLs one operator process (no release), deletes the children of the Applications in its
   * shards, and checks the survivors recreate them within the CLI's lease duration (15 s) + the resync (30 s).
   */
  const killProcess = async (namespace: string, victim: ReturnType<typeof spawnOperator>): Promise<void> => {
    await eventually(
      async () =>
        expect([...(await shardHolders(namespace)).values()].filter((holder) => holder === 'process-c')).toHaveLength(
          SHARDS / 3,
        ),
      20_000,
    );
    const victimShards = [...(await shardHolders(namespace))]
      .filter(([, holder]) => holder === 'process-c')
      .map(([shard]) => shard);
    const orphaned = Array.from({ length: APPLICATIONS }, (_, i) => `app-${i}`).filter((name) =>
      victimShards.includes(shardOf(`${namespace}/${name}`, SHARDS)),
    );
    // Every version of the Leases from before the kill: they record when each shard changed hands.
    const leaseHistory = recordingSink();
    const leaseWatch = admin.watch({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace }, leaseHistory);
    await eventually(() => expect(leaseHistory.events.length).toBeGreaterThan(0));
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    await Promise.all(
      orphaned.map((name) =>
        must(admin.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-config` })),
      ),
    );
    await eventually(
      async () => expect((await configMaps(namespace)).size).toBe(APPLICATIONS),
      15_000 + 30_000 + 10_000,
      200,
    );
    const seconds = (Date.now() - killedAt) / 1000;
    process.stdout.write(
      `\nSIGKILLed process-c (${orphaned.length} Applications in ${victimShards.length} shards): their deleted children were recreated ${seconds.toFixed(2)} s later (lease 15 s + resync 30 s allowed)\n`,
    );
    await eventually(
      async () =>
        expect(new Set((await shardHolders(namespace)).values())).toEqual(new Set(['process-a', 'process-b'])),
      10_000,
    );
    leaseWatch.stop();
    // Not before its Leases expired, as they record it.
    expectTakenAfterExpiry(leaseHistory, 'process-c', victimShards);
  };

  it("throughput with 1, 2 and 3 operator processes from cold; each process takes its share; a SIGKILLed process's Applications are taken over", async () => {
    for (const n of [1, 2, 3]) {
      const { namespace, cleanup } = await freshNamespace(admin, `kr-e2e-proc${n}`);
      cleanups.push(cleanup);
      await createApplications(namespace);
      const startedAt = performance.now();
      const operators = Array.from({ length: n }, (_, i) => spawnOperator(`process-${'abc'[i]}`, namespace));
      try {
        await eventually(async () => expect(await readyCount(namespace)).toBe(APPLICATIONS), 180_000, 200);
        const seconds = (performance.now() - startedAt) / 1000;
        const cpu = operators.map((o) => cpuSecondsOf(o.child.pid));
        throughput.set(n, { seconds, perSecond: APPLICATIONS / seconds, cpu });
        // Every process acted for some Applications; together for all of them.
        for (const o of operators) expect(o.acted.size).toBeGreaterThan(0);
        expect(new Set(operators.flatMap((o) => [...o.acted])).size).toBe(APPLICATIONS);
        if (n === 3) await killProcess(namespace, operators[2]!);
      } finally {
        const alive = operators.filter((o) => o.child.exitCode === null && o.child.signalCode === null);
        for (const o of alive) o.child.kill('SIGTERM');
        const codes = await Promise.all(alive.map((o) => o.exited));
        expect(codes.every((code) => code === 0)).toBe(true);
      }
    }
  }, 600_000);

  it("three replicas: one writer per Application at a time, each child written once; a killed replica's Applications converge again within the lease duration + one resync", async () => {
    const { namespace, writes, replicas } = await coldStart(3);
    await eventually(() => expect(replicas.map((r) => r.leases.ownedShards.length)).toEqual([4, 4, 4]), 10_000);
    // Cold phase: each ConfigMap written exactly once (created), by the replica owning it then; no two replicas wrote
    // for one Application at once.
    const configWrites = writes.filter((w) => w.object.startsWith('ConfigMap/'));
    expect(configWrites).toHaveLength(APPLICATIONS);
    expect(new Set(configWrites.map((w) => w.object)).size).toBe(APPLICATIONS);
    expect(concurrentWrites(writes)).toEqual([]);
    // Steady state: every Application's shard has one owner, and a settled replica reconciles only its own.
    const owners = (key: string) => replicas.filter((r) => r.leases.owns(key)).map((r) => r.id);
    for (let i = 0; i < APPLICATIONS; i++) expect(owners(`${namespace}/app-${i}`)).toHaveLength(1);

    // Kill replica c: it stops without releasing its Leases, as a crashed process would.
    const victim = replicas[2]!;
    const orphaned = Array.from({ length: APPLICATIONS }, (_, i) => `app-${i}`).filter((name) =>
      victim.leases.owns(`${namespace}/${name}`),
    );
    expect(orphaned.length).toBeGreaterThan(50);
    const leaseHistory = recordingSink();
    const leaseWatch = admin.watch({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace }, leaseHistory);
    await eventually(() => expect(leaseHistory.events.length).toBeGreaterThan(0));
    victim.leases.halt();
    await victim.controller.stop(0);
    running.splice(running.indexOf(victim), 1);
    const killedAt = Date.now();
    const writesBeforeKill = writes.length;
    // While nobody owns them, their children disappear: the survivors must notice after taking over.
    await Promise.all(
      orphaned.map((name) =>
        must(admin.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-config` })),
      ),
    );
    const survivors = replicas.slice(0, 2);
    await eventually(
      async () => expect((await configMaps(namespace)).size).toBe(APPLICATIONS),
      LEASE_MS + RESYNC_MS + 5_000,
      100,
    );
    const convergedAfterMs = Date.now() - killedAt;
    process.stdout.write(
      `\nkilled replica-c (${orphaned.length} Applications): its children were recreated ${(convergedAfterMs / 1000).toFixed(2)} s later (lease ${LEASE_MS / 1000} s + resync ${RESYNC_MS / 1000} s allowed)\n`,
    );
    await eventually(() => expect(survivors.map((r) => r.leases.ownedShards.length)).toEqual([6, 6]), 5_000);
    leaseWatch.stop();
    // Not before the lease expired: each shard changed hands after the victim's lease on it expired, as
    // the Lease records it, and each child was recreated after its shard's new holder acquired it.
    const victimShards = [...new Set(orphaned.map((name) => shardOf(`${namespace}/${name}`, SHARDS)))];
    const acquiredAt = expectTakenAfterExpiry(leaseHistory, victim.id, victimShards);
    const after = writes.slice(writesBeforeKill);
    const recreated = after.filter((w) => w.object.startsWith('ConfigMap/'));
    for (const write of recreated) {
      const application = write.object.slice('ConfigMap/'.length).replace(/-config$/, '');
      expect(write.sentAt).toBeGreaterThanOrEqual(acquiredAt.get(shardOf(application, SHARDS)) ?? Number.NaN);
    }
    expect(after.filter((w) => w.replica === victim.id)).toEqual([]);
    expect(recreated.map((w) => w.object).sort()).toEqual(
      orphaned.map((name) => `ConfigMap/${namespace}/${name}-config`).sort(),
    );
    expect(concurrentWrites(writes)).toEqual([]);
    // Every orphaned Application was reconciled by exactly one survivor after the takeover, and
    // successfully (a reconcile that created the child may still have failed on a later write and be retrying).
    const reconcilersAfterKill = (name: string, ok: boolean) =>
      survivors
        .filter((r) =>
          r.reconciled.some(
            (entry) => entry.key === `${namespace}/${name}` && entry.at >= killedAt && (entry.ok || !ok),
          ),
        )
        .map((r) => r.id);
    await eventually(() => {
      for (const name of orphaned) expect(reconcilersAfterKill(name, true), name).toHaveLength(1);
    }, 20_000);
    for (const name of orphaned) expect(reconcilersAfterKill(name, false), name).toHaveLength(1);
    await stopAll(survivors);
  }, 240_000);
});
