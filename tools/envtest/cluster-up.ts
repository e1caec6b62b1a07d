/**
 * `npm run cluster:up`: starts a loopback control plane by hand (etcd, kube-apiserver,
 * kube-controller-manager, the test CRDs), prints how to use it, and stops it on Ctrl-C.
 */
import { createKubernetesCluster } from '../../adapters/kubernetes/index.js';
import { suiteCrds } from '../../test/support/test-crds.js';
import { findBinaries } from './binaries.js';
import { clearState, writeState } from './cluster-state.js';
import { startControlPlane } from './control-plane.js';
import { installCrds } from './install-crds.js';

const lookup = findBinaries();
if (!lookup.found) {
  console.error(`cluster:up: ${lookup.reason}`);
  process.exit(2);
}

const started = Date.now();
const plane = await startControlPlane({
  binaries: lookup.binaries,
  beforeControllers: ({ kubeconfigPath }) => installCrds(createKubernetesCluster({ kubeconfigPath }), suiteCrds),
  log: (line) => console.error(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`),
  keepDir: process.argv.includes('--keep'),
}).catch((error: unknown) => {
  console.error(`cluster:up: ${(error as Error).message}`);
  process.exit(1);
});

console.error(
  `control plane ready in ${plane.startMs} ms (${plane.withControllerManager ? 'with' : 'without'} kube-controller-manager); Ctrl-C stops it`,
);
console.error(
  `  export KUBECONFIG=${plane.kubeconfigPath} KRECONCILE_USE_EXISTING_CLUSTER=1   # then: npx vitest run --project kubernetes`,
);
writeState({ pid: process.pid, kubeconfigPath: plane.kubeconfigPath, dir: plane.dir });
console.error('  npm run cluster:down   # from another shell, or Ctrl-C here');
// stdout carries only the path, so `KUBECONFIG=$(…)`-style scripting works.
console.log(plane.kubeconfigPath);

let stopping = false;
const stop = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  console.error(`${signal}: stopping`);
  void plane.stop().then(() => {
    clearState(process.pid);
    process.exit(0);
  });
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
// Report a component that dies while the user is working against it.
setInterval(() => {
  const dead = plane.deadComponents();
  if (dead.length > 0 && !stopping) {
    console.error(`${dead.join(', ')} exited:\n${plane.logTails(30)}`);
    stop('component exit');
  }
}, 2_000);
