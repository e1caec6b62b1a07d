/**
 * The kubeconfig a command would use, checked before connecting: without one, the client library
 * silently falls back to http://localhost:8080 and fails later with a TLS message that hides
 * the actual problem (no kubeconfig at all).
 */
import { delimiter, join } from 'node:path';
import type { ClusterTarget } from '../io.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Why no kubeconfig would be found for `target` (kubectl's lookup: --kubeconfig, else the files of
 * $KUBECONFIG, else ~/.kube/config; in a pod the service account), or undefined when one exists.
 */
export const kubeconfigProblem = (
  target: ClusterTarget,
  env: Env,
  exists: (path: string) => boolean,
): string | undefined => {
  if (target.kubeconfigPath !== undefined)
    return exists(target.kubeconfigPath)
      ? undefined
      : `--kubeconfig ${target.kubeconfigPath}: no such file: check the path`;
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((path) => path !== '');
  if (listed.length > 0)
    return listed.some(exists)
      ? undefined
      : `KUBECONFIG=${env.KUBECONFIG ?? ''} names no existing file: fix it or name a kubeconfig with --kubeconfig`;
  const home = env.HOME ?? env.USERPROFILE;
  if (home !== undefined && exists(join(home, '.kube', 'config'))) return undefined;
  if (env.KUBERNETES_SERVICE_HOST !== undefined) return undefined;
  return 'no kubeconfig: --kubeconfig is not given, KUBECONFIG is not set and ~/.kube/config does not exist: name one with --kubeconfig';
};
