/**
 * Shard membership on a real API server (issue 25, C): two `kreconcile run --sharding lease`
 * processes share 4 shards; one is SIGKILLed; once the survivor holds all 4, a third starts. The
 * newcomer must count the live members only (the dead one's member Lease, never renewed since the
 * kill, is judged by its renewTime), so the survivor's released shards are taken at once: no shard
 * Lease stays without a holder for more than two retry periods. Read from the Lease objects' own
 * history (every version, from a watch): a release's `renewTime` to the next holder's `acquireTime`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { getIn, type Resource, type WatchHandle } from '../../core/internal.js';
import { eventually } from '../support/eventually.js';
import { podOfHolder } from '../support/lease-version.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';

const SHARDS = 4;
/** The CLI's default retry period (`--sharding lease`: Leases of 15 s, read and renewed every 2 s). */
const RETRY_MS = 2_000;
const LEASE_MS = 15_000;
const SHARD_LEASE = 'kreconcile-shard-';

/** One version of a shard Lease as the watch delivered it. */
type Version = {
  readonly shard: number;
  readonly holder: string;
  readonly renewTime: string | undefined;
  readonly acquireTime: string | undefined;
};

const versionOf = (lease: Resource): Version => ({
  shard: Number(lease.metadata.name.slice(SHARD_LEASE.length)),
  holder: podOfHolder(String(getIn(lease, ['spec', 'holderIdentity']) ?? '')),
  renewTime: getIn(lease, ['spec', 'renewTime']) as string | undefined,
  acquireTime: getIn(lease, ['spec', 'acquireTime']) as string | undefined,
});

/**
 * Each stretch a shard Lease had no holder, in ms, from the Lease objects alone: from the release
 * (the version with no holder: its `renewTime` is when it was released) to the next holder's
 * `acquireTime`. A stretch still open at the end counts until `endedAt`.
 */
const ownerlessStretches = (history: ReadonlyArray<Version>, endedAt: number): ReadonlyArray<number> =>
  Array.from({ length: SHARDS }, (_, shard) => history.filter((v) => v.shard === shard)).flatMap((versions) => {
    const stretches: number[] = [];
    let releasedAt: number | undefined;
    for (const version of versions) {
      if (version.holder === '') releasedAt ??= Date.parse(version.renewTime ?? '');
      else if (releasedAt !== undefined) {
        stretches.push(Date.parse(version.acquireTime ?? '') - releasedAt);
        releasedAt = undefined;
      }
    }
    if (releasedAt !== undefined) stretches.push(endedAt - releasedAt);
    return stretches;
  });

describeWithApiServer('shard membership on a real API server: a replica killed, another started', (env) => {
  let admin: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-members'));
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await cleanup?.();
  });

  const spawnOperator = (id: string): { child: ChildProcess; exited: Promise<number | null> } => {
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
        '--log-level',
        'warn',
      ],
      { env: { ...process.env, POD_NAME: id, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.push(child);
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      if (/error|fatal/i.test(text)) process.stderr.write(`[${id}] ${text}`);
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exited };
  };

  const shardLeases = async (): Promise<ReadonlyArray<Resource>> =>
    (await must(admin.list({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace }))).items.filter((lease) =>
      lease.metadata.name.startsWith(SHARD_LEASE),
    );

  const holdersCount = async (): Promise<Readonly<Record<string, number>>> => {
    const counts: Record<string, number> = {};
    for (const lease of await shardLeases()) {
      const holder = versionOf(lease).holder;
      counts[holder] = (counts[holder] ?? 0) + 1;
    }
    return counts;
  };

  it('the replica started after a kill -9 takes its share of the live members at once: no shard without a holder for more than 2 retry periods', async () => {
    spawnOperator('process-a');
    const b = spawnOperator('process-b');
    await eventually(async () => expect(await holdersCount()).toEqual({ 'process-a': 2, 'process-b': 2 }), 60_000, 250);

    b.child.kill('SIGKILL');
    await b.exited;
    await eventually(
      async () => expect(await holdersCount()).toEqual({ 'process-a': SHARDS }),
      LEASE_MS + 4 * RETRY_MS + 10_000,
      250,
    );

    // Every version of the shard Leases from now on, as the API server stored them.
    const listed = await must(
      admin.list({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace,
        labelSelector: 'kreconcile.io/sharding=kreconcile',
      }),
    );
    const history: Version[] = listed.items.filter((l) => l.metadata.name.startsWith(SHARD_LEASE)).map(versionOf);
    const watch: WatchHandle = admin.watch(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace,
        labelSelector: 'kreconcile.io/sharding=kreconcile',
        resourceVersion: listed.resourceVersion,
      },
      {
        event: (event) => {
          if (event.type !== 'BOOKMARK' && event.object.metadata.name.startsWith(SHARD_LEASE))
            history.push(versionOf(event.object));
        },
        closed: (error) => {
          if (error !== undefined) process.stderr.write(`lease watch closed: ${error.message}\n`);
        },
      },
    );
    try {
      spawnOperator('process-c');
      await eventually(
        async () => expect(await holdersCount()).toEqual({ 'process-a': 2, 'process-c': 2 }),
        LEASE_MS + 10_000,
        250,
      );
      // A few more rounds: nothing moves once the split is fair.
      await new Promise((resolve) => setTimeout(resolve, 3 * RETRY_MS));
    } finally {
      watch.stop();
    }
    const stretches = ownerlessStretches(history, Date.now());
    process.stdout.write(
      `\nshard Leases without a holder after process-c joined: ${stretches.map((ms) => `${ms} ms`).join(', ')} (at most ${2 * RETRY_MS} ms allowed)\n`,
    );
    // The survivor released two shards for the newcomer; each was taken within two retry periods.
    expect(stretches.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...stretches)).toBeLessThanOrEqual(2 * RETRY_MS);
    expect(await holdersCount()).toEqual({ 'process-a': 2, 'process-c': 2 });
  });
});
