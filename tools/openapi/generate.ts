/**
 * `npm run schemas:update`: starts the loopback control plane (tools/envtest) on the kube-apiserver
 * the project builds (tools/k8s-bin), reads its OpenAPI v3 documents and discovery, and writes the
 * compact schema file that offline validation ships with (`schemas/kubernetes-<minor>.json`).
 * `--kubeconfig <path>` reads a running server instead.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBinaries } from '../envtest/binaries.js';
import { startControlPlane } from '../envtest/control-plane.js';
import { showCompactSchemas } from './compact.js';
import { readServedSchemas } from './served.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `schemas/kubernetes-1.36.json` for `v1.36.3`: one file per minor version (patch releases keep their schemas). */
export const schemaFileOf = (kubernetesVersion: string): string => {
  const minor = /^v?(\d+)\.(\d+)/.exec(kubernetesVersion);
  if (minor === null) throw new Error(`not a Kubernetes version: ${kubernetesVersion}`);
  return join(root, 'schemas', `kubernetes-${minor[1]}.${minor[2]}.json`);
};

const readFrom = async (kubeconfigPath: string | undefined): Promise<ReturnType<typeof readServedSchemas>> => {
  if (kubeconfigPath !== undefined) return readServedSchemas(kubeconfigPath);
  const lookup = findBinaries();
  if (!lookup.found) throw new Error(`${lookup.reason} (build them with npm run k8s:build)`);
  const plane = await startControlPlane({ binaries: lookup.binaries, controllerManager: false });
  try {
    return await readServedSchemas(plane.kubeconfigPath);
  } finally {
    await plane.stop();
  }
};

const flag = process.argv.indexOf('--kubeconfig');
const started = Date.now();
try {
  const schemas = await readFrom(flag < 0 ? undefined : process.argv[flag + 1]);
  const text = showCompactSchemas(schemas);
  const file = schemaFileOf(schemas.kubernetesVersion);
  writeFileSync(file, text);
  const kinds = Object.values(schemas.kinds).reduce((sum, byKind) => sum + Object.keys(byKind).length, 0);
  console.error(
    `${file}: ${kinds} kinds in ${Object.keys(schemas.kinds).length} group-versions, ${Object.keys(schemas.schemas).length} schemas, ${text.length} bytes (${Date.now() - started} ms)`,
  );
} catch (error) {
  console.error(`schemas:update: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
