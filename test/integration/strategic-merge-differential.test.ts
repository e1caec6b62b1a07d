/**
 * Differential test of strategic merge patch (issue 35): seeded patches of a Deployment
 * (test/adapters/memory/strategic/patch-cases.ts: containers, env, ports, volumes, finalizers,
 * every directive, nulls, malformed patches) sent over HTTP, with the Kubernetes adapter's
 * `strategic` patch, to the real kube-apiserver and to the in-memory API server served over HTTP,
 * each on the same freshly created Deployment. Compared: the status code, the message of a
 * failure, and the stored object (fields the server generates normalised). The Go struct the real
 * server decodes the merged object into drops unknown members (a `$patch` left in an item the
 * patch adds), nulls and empty maps; the memory server keeps those for built-in kinds (a gap of
 * its typing, listed in docs/testing.md), so they are removed on both sides before comparing: what
 * remains is the merge itself. The seed is printed;
 * rerun one with SMP_DIFF_SEED=<seed>; the count is bounded (SMP_DIFF_RUNS, default 60).
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKubernetesCluster, type KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { serveMemoryCluster, type ServedCluster } from '../../adapters/memory/http/index.js';
import { createMemoryCluster, systemClock } from '../../adapters/memory/index.js';
import type { JsonObject, JsonValue } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';
import type { Cluster } from '../../core/ports/cluster.js';
import { normalize } from '../contract/whole-object-normalize.js';
import { baseDeployment, seeded, strategicPatchCase } from '../adapters/memory/strategic/patch-cases.js';
import { connect, describeWithApiServer, freshNamespace } from '../support/kubernetes-env.js';

const SEED = Number(process.env.SMP_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.SMP_DIFF_RUNS ?? 60);

type Outcome = { readonly code: number; readonly message?: string; readonly object?: JsonValue };

const ref = (namespace: string, name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name });

/** Without what decoding into the Go struct drops: `$` members, nulls, empty maps (see the header). */
const typed = (value: JsonValue): JsonValue => {
  if (Array.isArray(value)) return value.map(typed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith('$'))
      .map(([key, member]) => [key, typed(member)] as const)
      .filter(
        ([, member]) =>
          member !== null &&
          !(typeof member === 'object' && !Array.isArray(member) && Object.keys(member).length === 0),
      ),
  );
};

/** The Deployment as stored after the patch; only what a patch writes (spec, labels, finalizers) is compared. */
const stored = (object: Resource, namespace: string): JsonValue =>
  typed(
    normalize(
      {
        metadata: { labels: object.metadata.labels ?? null, finalizers: object.metadata.finalizers ?? null },
        spec: (object as JsonObject).spec ?? null,
      },
      namespace,
    ),
  );

const outcomeOf = async (cluster: Cluster, namespace: string, name: string, patch: JsonObject): Promise<Outcome> => {
  const created = await cluster.create({
    ...baseDeployment(name),
    metadata: { ...(baseDeployment(name).metadata as JsonObject), namespace },
  } as Resource)();
  if (E.isLeft(created)) throw new Error(`create ${name}: ${created.left.message}`);
  const answer = await cluster.patch(ref(namespace, name), { type: 'strategic', body: patch })();
  if (E.isLeft(answer)) return { code: answer.left.code, message: answer.left.message };
  return { code: 200, object: stored(answer.right, namespace) };
};

describeWithApiServer('strategic merge patch: memory server vs kube-apiserver', (env) => {
  let real: KubernetesCluster;
  let memory: KubernetesCluster;
  let served: ServedCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    real = connect(env);
    ({ namespace, cleanup } = await freshNamespace(real, 'kr-smp'));
    served = await serveMemoryCluster(createMemoryCluster({ clock: systemClock, seed: 1, workloads: false }));
    memory = createKubernetesCluster({ kubeconfigYaml: served.kubeconfig });
    const created = await memory.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
    expect(E.isRight(created)).toBe(true);
  });
  afterAll(async () => {
    // The Deployments carry finalizers: cleared so that the namespace can go.
    for (let i = 0; i < RUNS; i++)
      await real.patch(ref(namespace, `smp-${i}`), { type: 'merge', body: { metadata: { finalizers: null } } })();
    await cleanup();
    await served.close();
  });

  it('stores the same object, or fails the same way, for every generated patch', async () => {
    console.log(`strategic merge differential seed: ${SEED} (rerun: SMP_DIFF_SEED=${SEED}), ${RUNS} patches`);
    const random = seeded(SEED);
    const differences: string[] = [];
    let failures = 0;
    for (let i = 0; i < RUNS; i++) {
      const patch = strategicPatchCase(random);
      const name = `smp-${i}`;
      const [onReal, onMemory] = [
        await outcomeOf(real, namespace, name, patch),
        await outcomeOf(memory, namespace, name, patch),
      ];
      if (onReal.code !== 200) failures++;
      if (JSON.stringify(onReal) !== JSON.stringify(onMemory))
        differences.push(
          `${name} ${JSON.stringify(patch)}\n  real:   ${JSON.stringify(onReal)}\n  memory: ${JSON.stringify(onMemory)}`,
        );
    }
    console.log(
      `strategic merge differential: ${RUNS} patches, ${failures} refused by the real server, ${differences.length} differences`,
    );
    expect(differences).toEqual([]);
    // Not vacuous: merges and refusals were both compared.
    expect(RUNS - failures).toBeGreaterThan(RUNS / 2);
  }, 300_000);
});
