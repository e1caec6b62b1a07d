/**
 * Captures the whole-object contract's expectations from a real kube-apiserver (envtest
 * binaries, no controller manager): `npx tsx test/contract/capture-whole-objects.ts`.
 * Rewrites `whole-object-expected.ts`; review the diff like any other change of behaviour.
 */
import * as E from 'fp-ts/lib/Either.js';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findBinaries } from '../../tools/envtest/binaries.js';
import { startControlPlane } from '../../tools/envtest/control-plane.js';
import { createKubernetesCluster } from '../../adapters/kubernetes/index.js';
import type { Cluster } from '../../core/ports/cluster.js';
import { normalize } from './whole-object-normalize.js';
import { manifests } from './whole-object-manifests.js';

const lookup = findBinaries();
if (!lookup.found) throw new Error(lookup.reason);
const plane = await startControlPlane({ binaries: lookup.binaries, controllerManager: false });
const real: Cluster = createKubernetesCluster({ kubeconfigPath: plane.kubeconfigPath });
const namespace = 'kr-capture';
const target = fileURLToPath(new URL('./whole-object-expected.ts', import.meta.url));
const header = `/**
 * Whole objects as kube-apiserver 1.36.3 stores them for the manifests of
 * \`whole-object-manifests.ts\`, normalised by \`whole-object-normalize.ts\`. Captured from a real
 * server by \`capture-whole-objects.ts\` (run it again to follow a new Kubernetes version).
 */
import type { JsonValue } from '../../core/json/json.js';

export const expectedObjects: Readonly<Record<string, JsonValue>> = `;
try {
  await real.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
  const captured: Record<string, unknown> = {};
  for (const [name, make] of Object.entries(manifests)) {
    const created = await real.create(make(namespace))();
    if (E.isLeft(created)) throw new Error(`${name}: ${created.left.message}`);
    captured[name] = normalize(created.right, namespace);
  }
  writeFileSync(target, `${header}${JSON.stringify(captured, null, 2)};\n`);
  console.log(`${Object.keys(captured).length} objects written to ${target}`);
} finally {
  await plane.stop();
}
