/**
 * `npm run cluster:down [-- <pid>]`: stops a control plane that `npm run cluster:up` started,
 * by the pid it recorded — the only one when there is one, the named one otherwise.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { clearState, readStates, stateDir } from './cluster-state.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const states = readStates();
for (const gone of states.filter((s) => !alive(s.pid))) clearState(gone.pid);
const running = states.filter((s) => alive(s.pid));
const wanted = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
const target =
  wanted === undefined ? (running.length === 1 ? running[0] : undefined) : running.find((s) => s.pid === wanted);

if (target === undefined) {
  if (running.length === 0) console.error(`cluster:down: no running cluster recorded in ${stateDir()}`);
  else {
    console.error(
      `cluster:down: ${wanted === undefined ? 'several clusters are running' : `no running cluster with pid ${wanted}`}; name one: npm run cluster:down -- <pid>`,
    );
    for (const s of running) console.error(`  ${s.pid}  ${s.kubeconfigPath}`);
  }
  process.exit(wanted === undefined && running.length === 0 ? 0 : 1);
}

// SIGTERM to cluster:up itself: it stops its components in order (apiserver before etcd).
process.kill(target.pid, 'SIGTERM');
const deadline = Date.now() + 60_000;
while (alive(target.pid) && Date.now() < deadline) await sleep(200);
if (alive(target.pid)) {
  console.error(`cluster:down: process ${target.pid} did not stop within 60 s`);
  process.exit(1);
}
clearState(target.pid);
console.error(`cluster:down: stopped ${target.pid} (kubeconfig was ${target.kubeconfigPath})`);
