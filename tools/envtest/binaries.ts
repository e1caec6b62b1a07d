/**
 * Where the kube-apiserver, etcd and kube-controller-manager binaries are: envtest's variables
 * first, then the version-keyed cache that tools/k8s-bin/build.sh fills.
 */
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Binaries = {
  readonly kubeApiServer: string;
  readonly etcd: string;
  /** Absent when only the apiserver and etcd could be found (no GC, namespaces stay Terminating). */
  readonly kubeControllerManager?: string;
};

export type BinaryLookup =
  | { readonly found: true; readonly binaries: Binaries; readonly source: string }
  | { readonly found: false; readonly reason: string };

/** Versions the build script defaults to; keep in step with tools/k8s-bin/build.sh. */
export const K8S_VERSION = '1.36.3';
export const ETCD_VERSION = '3.6.8';

export const defaultCacheDir = (env: NodeJS.ProcessEnv = process.env): string =>
  join(
    env.K8S_BIN_CACHE ?? join(homedir(), '.cache', 'kreconcile', 'k8s-test-bin'),
    `k8s-v${env.K8S_VERSION ?? K8S_VERSION}-etcd-v${env.ETCD_VERSION ?? ETCD_VERSION}`,
  );

const executable = (path: string | undefined): path is string => {
  if (path === undefined || path === '') return false;
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const fromDir = (dir: string, source: string): BinaryLookup => {
  const kubeApiServer = join(dir, 'kube-apiserver');
  const etcd = join(dir, 'etcd');
  const kcm = join(dir, 'kube-controller-manager');
  const missing = [kubeApiServer, etcd].filter((p) => !executable(p));
  if (missing.length > 0) return { found: false, reason: `${source}: missing ${missing.join(', ')}` };
  return {
    found: true,
    source,
    binaries: { kubeApiServer, etcd, ...(executable(kcm) ? { kubeControllerManager: kcm } : {}) },
  };
};

/**
 * Looks the binaries up, in envtest's order: `TEST_ASSET_KUBE_APISERVER` + `TEST_ASSET_ETCD`
 * (+ `TEST_ASSET_KUBE_CONTROLLER_MANAGER`), then `KUBEBUILDER_ASSETS`, then the build cache.
 * The reason names every place that was tried, so a skip message tells the user what to do.
 */
export const findBinaries = (env: NodeJS.ProcessEnv = process.env): BinaryLookup => {
  const tried: string[] = [];
  if (env.TEST_ASSET_KUBE_APISERVER || env.TEST_ASSET_ETCD) {
    const kubeApiServer = env.TEST_ASSET_KUBE_APISERVER;
    const etcd = env.TEST_ASSET_ETCD;
    const kcm = env.TEST_ASSET_KUBE_CONTROLLER_MANAGER;
    if (executable(kubeApiServer) && executable(etcd)) {
      return {
        found: true,
        source: 'TEST_ASSET_*',
        binaries: { kubeApiServer, etcd, ...(executable(kcm) ? { kubeControllerManager: kcm } : {}) },
      };
    }
    tried.push(`TEST_ASSET_KUBE_APISERVER=${kubeApiServer ?? ''} / TEST_ASSET_ETCD=${etcd ?? ''}: not both executable`);
  }
  if (env.KUBEBUILDER_ASSETS) {
    const lookup = fromDir(env.KUBEBUILDER_ASSETS, `KUBEBUILDER_ASSETS=${env.KUBEBUILDER_ASSETS}`);
    if (lookup.found) return lookup;
    tried.push(lookup.reason);
  }
  const cache = fromDir(defaultCacheDir(env), `build cache ${defaultCacheDir(env)}`);
  if (cache.found) return cache;
  tried.push(cache.reason);
  return {
    found: false,
    reason: `no kube-apiserver/etcd binaries (${tried.join('; ')}); build them with \`npm run k8s:build\``,
  };
};

/**
 * The kubectl the kubectl sessions drive: `KUBECTL`, the one tools/k8s-bin builds next to the
 * control plane (the same version), or the first on the PATH; undefined when there is none.
 */
export const findKubectl = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const candidates = [
    env.KUBECTL,
    join(defaultCacheDir(env), 'kubectl'),
    ...(env.PATH ?? '').split(':').map((dir) => join(dir, 'kubectl')),
  ];
  return candidates.find(executable);
};
