/**
 * Every request a cold operator sends a real control plane, by verb and kind (docs/performance.md,
 * "Requests per new Application"): N Applications of the fleet's shape created before it starts,
 * then the operator runs until every one is Ready. Counted where every request passes once (the
 * client's flow control) and, by verb and kind, at the `Cluster` port; the difference is what the
 * adapter sends on its own (discovery).
 *
 *   npx tsx bench/request-log.ts [--applications=100] [--shape=flux|argo] [--show=app-7] [--events=low|shared]
 *
 * Events go through the client's low-priority lane as `kreconcile run` sends them (`--events=shared`:
 * with the reconciles' own requests, as before); when each is answered is printed against the last Ready.
 * `--show` prints, in order, every call naming that Application (its children included). Needs the
 * control-plane binaries (`npm run k8s:build`), with kube-controller-manager for Deployment status.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { join } from 'node:path';
import { createKubernetesCluster } from '../adapters/kubernetes/index.js';
import { applicationCrd } from '../app/manifests/crd.js';
import { converged } from '../app/reconcile/reconcile-application.js';
import { startOperator } from '../app/runtime/operator.js';
import { systemClock } from '../app/runtime/index.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type Cluster, type Patch } from '../core/internal.js';
import { findBinaries } from '../tools/envtest/binaries.js';
import { startControlPlane } from '../tools/envtest/control-plane.js';
import { installCrd } from '../tools/envtest/install-crds.js';
import { FLEET_CONTROLLERS, applicationObjects, type Shape } from './fleet-objects.js';

const flagValue = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

const usage = (problem: string): never => {
  process.stderr.write(
    `request-log: ${problem} (usage: bench/request-log.ts [--applications=100] [--shape=flux|argo])\n`,
  );
  process.exit(2);
};

const count = Number(flagValue('applications') ?? 100);
if (!Number.isInteger(count) || count <= 0)
  usage(`--applications=${flagValue('applications')}: expected a positive integer`);
const shapeFlag = flagValue('shape') ?? 'flux';
const shape: Shape =
  shapeFlag === 'argo' ? 'argo' : shapeFlag === 'flux' ? 'flux' : usage(`--shape=${shapeFlag}: expected flux or argo`);
const show = flagValue('show');
const eventsFlag = flagValue('events') ?? 'low';
if (eventsFlag !== 'low' && eventsFlag !== 'shared') usage(`--events=${eventsFlag}: expected low or shared`);
const NAMESPACE = 'requests';

/** One line per call: `verb Kind namespace/name`, a patch with its type (a JSON Patch: its operations' paths). */
const describePatch = (patch: Patch): string =>
  patch.type === 'json'
    ? patch.operations.map((operation) => `${operation.op} ${operation.path}`).join(', ')
    : patch.type;

/** `cluster` with every call noted in `calls`. */
const logged = (cluster: Cluster, calls: string[]): Cluster => {
  const note = (line: string): void => {
    calls.push(line);
  };
  return {
    get: (ref) => (note(`get ${ref.kind} ${ref.namespace ?? ''}/${ref.name}`), cluster.get(ref)),
    list: (query) => (
      note(`list ${query.kind}${query.namespace ? ` ns=${query.namespace}` : ''}`),
      cluster.list(query)
    ),
    watch: (query, sink) => (note(`watch ${query.kind}`), cluster.watch(query, sink)),
    scopeOf: (apiVersion, kind) => (note(`discovery ${apiVersion} ${kind}`), cluster.scopeOf(apiVersion, kind)),
    create: (object, options) => (
      note(`create ${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`),
      cluster.create(object, options)
    ),
    update: (object, options) => (
      note(`update ${object.kind} ${object.metadata.name}`),
      cluster.update(object, options)
    ),
    patch: (ref, patch, options) => (
      note(`patch ${ref.kind} ${ref.namespace ?? ''}/${ref.name} (${describePatch(patch)})`),
      cluster.patch(ref, patch, options)
    ),
    delete: (ref, options) => (
      note(`delete ${ref.kind} ${ref.namespace ?? ''}/${ref.name}`),
      cluster.delete(ref, options)
    ),
    updateStatus: (object) => (
      note(`updateStatus ${object.kind} ${object.metadata.name}`),
      cluster.updateStatus(object)
    ),
    patchStatus: (ref, patch) => (
      note(`patchStatus ${ref.kind} ${ref.namespace ?? ''}/${ref.name} (${describePatch(patch)})`),
      cluster.patchStatus(ref, patch)
    ),
  };
};

/** `cluster` noting when each create is answered, in ms since `since()`. */
const answerTimes = (cluster: Cluster, times: number[], since: () => number): Cluster => ({
  ...cluster,
  create: (object, options) => () =>
    cluster
      .create(object, options)()
      .then((result) => {
        times.push(performance.now() - since());
        return result;
      }),
});

/**
 * Whether a call names Application `name` or one of its children (`<name>`, `<name>-config`, Events `<name>.<suffix>`).
 */
const namesApplication = (line: string, name: string): boolean =>
  line
    .split(' ')
    .some(
      (token) =>
        token.endsWith(`/${name}`) ||
        token.startsWith(`${NAMESPACE}/${name}-`) ||
        token.startsWith(`${NAMESPACE}/${name}.`),
    );

/** `verb Kind (patch)`: a call without the object's name, to count alike calls. */
const callKind = (line: string): string => line.replace(/ [^ ]*\/[^ ]*( |$)/, '$1').trim();

const main = async (): Promise<void> => {
  const lookup = findBinaries();
  if (!lookup.found) return usage(`no control-plane binaries: ${lookup.reason} (run npm run k8s:build)`);
  if (lookup.binaries.kubeControllerManager === undefined)
    return usage('kube-controller-manager is needed for Deployment status: run npm run k8s:build');
  const plane = await startControlPlane({
    binaries: lookup.binaries,
    extraControllers: FLEET_CONTROLLERS,
    beforeControllers: async ({ kubeconfigPath }) =>
      installCrd(createKubernetesCluster({ kubeconfigPath }), applicationCrd()),
  });
  try {
    const driver = createKubernetesCluster(
      { kubeconfigPath: plane.kubeconfigPath },
      { flowControl: { qps: 1000, burst: 1000 } },
    );
    await driver.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })();
    for (let i = 0; i < count; i++) {
      const created = await driver.create({
        apiVersion: APPLICATION_API_VERSION,
        kind: APPLICATION_KIND,
        metadata: { name: `app-${i}`, namespace: NAMESPACE },
        spec: { manifest: applicationObjects(shape, i, NAMESPACE) },
      })();
      if (E.isLeft(created)) throw new Error(`creating app-${i}: ${created.left.message}`);
    }
    let sent = 0;
    const operatorCluster = createKubernetesCluster(
      { kubeconfigPath: plane.kubeconfigPath },
      { flowControl: { qps: 50, burst: 100, onWait: () => sent++ } },
    );
    const calls: string[] = [];
    const ready = new Set<string>();
    const started = performance.now();
    const eventTimes: number[] = [];
    const events = eventsFlag === 'low' ? operatorCluster.lowPriority : operatorCluster;
    const operator = await startOperator({
      cluster: logged(operatorCluster, calls),
      eventCluster: answerTimes(logged(events, calls), eventTimes, () => started),
      clock: systemClock,
      random: Math.random,
      workers: 4,
      resyncMs: 0,
      namespace: NAMESPACE,
      readiness: 'kstatus',
      onReconciled: (key, result) => {
        if (converged(result)) ready.add(key);
      },
    });
    while (ready.size < count && performance.now() - started < 600_000) await systemClock.sleep(50);
    const elapsedMs = performance.now() - started;
    const atReady = sent;
    await operator.stop(5_000);
    // The Events still waiting in the lane go out now that nothing else does.
    for (let waited = 0; waited < 30_000; waited += 50) {
      const { queued, inFlight } = operatorCluster.flowControl.stats();
      if (queued === 0 && inFlight === 0) break;
      await systemClock.sleep(50);
    }
    const tally = new Map<string, number>();
    for (const line of calls) tally.set(callKind(line), (tally.get(callKind(line)) ?? 0) + 1);
    console.log(
      `${ready.size}/${count} Applications (${shape}) Ready in ${(elapsedMs / 1000).toFixed(1)} s: ${atReady} requests (${(atReady / count).toFixed(2)} per Application), ${calls.length} through the Cluster port`,
    );
    const early = eventTimes.filter((at) => at <= elapsedMs).length;
    console.log(
      `Events (${eventsFlag === 'low' ? 'low-priority lane' : 'shared with the reconciles'}): ${eventTimes.length} answered, ${early} before the last Application was Ready, first at ${((eventTimes[0] ?? 0) / 1000).toFixed(1)} s, last at ${((eventTimes.at(-1) ?? 0) / 1000).toFixed(1)} s`,
    );
    for (const [call, times] of [...tally].sort(([a], [b]) => a.localeCompare(b)))
      console.log(`${String(times).padStart(6)}  ${call}`);
    if (show !== undefined) {
      console.log(`\ncalls naming ${show}:`);
      for (const line of calls) if (namesApplication(line, show)) console.log(`  ${line}`);
    }
  } finally {
    await plane.stop();
  }
};

await main();
process.exit(0);
