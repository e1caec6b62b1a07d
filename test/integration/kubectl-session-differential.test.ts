/**
 * One scripted kubectl session, run step by step against `kreconcile serve` and against the real
 * kube-apiserver 1.36.3 (a namespace of the same fresh name on each), compared on exit codes,
 * on the stored fields each step is about (`get -o jsonpath`, `-o json` picked apart) and on
 * stdout where it is deterministic once normalised (table columns but AGE, diff file names and
 * times). The session is what a user types: client-side `apply` (create, then a changed env var
 * and port: kubectl's three-way strategic merge patch; then an unchanged Deployment that says
 * `cpu: 1000m`, which the server stores as "1"), `edit` through `EDITOR`, `set image`, `set env`,
 * `diff`, the three `patch` types, `create deployment|job|service clusterip|configmap`, `get`
 * columns, `get all`, `auth can-i`, and server-side apply with a conflict then
 * `--force-conflicts`. The transcript (steps, same or different) is printed at the end.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isJsonObject } from '../../core/json/json.js';
import { findKubectl } from '../../tools/envtest/binaries.js';
import { eventually } from '../support/eventually.js';
import { describeWithApiServer, uniqueName } from '../support/kubernetes-env.js';
import { widgetCrd } from '../support/test-crds.js';
import {
  DEPLOYMENT,
  kubectlStep,
  normaliseDiff,
  normaliseTable,
  pickStored,
  type Outcome,
  type Step,
} from '../support/kubectl-session.js';

const kubectlPath = findKubectl();
const hasKubectl =
  kubectlPath !== undefined && spawnSync(kubectlPath, ['version', '--client'], { encoding: 'utf8' }).status === 0;

const changed = DEPLOYMENT.replace('value: fast', 'value: slow').replace('containerPort: 8080', 'containerPort: 9090');
const owned = (mode: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\ndata:\n  mode: ${mode}\n  kept: "yes"\n`;

/** A CRD of its own (cluster-scoped: a fresh group, deleted afterwards). */
const group = `${uniqueName('kr')}.example.com`;
const widgets = `widgets.${group}`;
// The suites' Widget CRD (defaults, a status subresource) under that group.
const crd = JSON.stringify({
  ...widgetCrd,
  metadata: { name: widgets },
  spec: { ...(isJsonObject(widgetCrd.spec) ? widgetCrd.spec : {}), group },
});
const widget = (size: number, tags: ReadonlyArray<string>): string =>
  JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size, tags } });

const container = '.spec.template.spec.containers[0]';
const deploymentFields = `{${container}.env}{" "}{${container}.ports}{" "}{${container}.resources}{" "}{${container}.image}`;

/** The session, in order; each step runs on both servers before the next. */
const steps: ReadonlyArray<Step> = [
  { name: 'apply -f (create)', args: ['apply', '-f', 'deploy.yaml'] },
  { name: 'stored after create', args: ['get', 'deploy', 'web', '-o', `jsonpath=${deploymentFields}`] },
  {
    name: 'apply -f (env var and port changed)',
    args: ['apply', '-f', 'deploy-changed.yaml'],
    shows: 'deployment.apps/web configured',
  },
  { name: 'stored after the three-way patch', args: ['get', 'deploy', 'web', '-o', 'json'], normalise: pickStored },
  { name: 'apply -f unchanged (cpu: 1000m stored as "1")', args: ['apply', '-f', 'deploy-changed.yaml'] },
  {
    name: 'generation after the unchanged apply',
    args: ['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.generation}'],
  },
  { name: 'edit via EDITOR (sed)', args: ['edit', 'deploy', 'web'], editor: 's/value: slow/value: edited/' },
  {
    name: 'stored after edit',
    args: ['get', 'deploy', 'web', '-o', `jsonpath={${container}.env}`],
    shows: '"value":"edited"',
  },
  { name: 'set image', args: ['set', 'image', 'deploy/web', 'web=nginx:1.28'] },
  { name: 'set env', args: ['set', 'env', 'deploy/web', 'EXTRA=1'] },
  {
    name: 'stored after set image, set env',
    args: ['get', 'deploy', 'web', '-o', 'json'],
    normalise: pickStored,
    shows: '"image": "nginx:1.28"',
  },
  {
    name: 'diff with changes (exit 1)',
    args: ['diff', '-f', 'deploy-changed.yaml'],
    normalise: normaliseDiff,
    exit: 1,
  },
  { name: 'apply -f back to the file', args: ['apply', '-f', 'deploy-changed.yaml'] },
  { name: 'diff without changes (exit 0)', args: ['diff', '-f', 'deploy-changed.yaml'], normalise: normaliseDiff },
  {
    name: 'patch (strategic, a list item by merge key)',
    args: [
      'patch',
      'deploy',
      'web',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"P","value":"s"}]}]}}}}',
    ],
  },
  {
    name: 'patch --type merge',
    args: ['patch', 'deploy', 'web', '--type', 'merge', '-p', '{"metadata":{"labels":{"m":"1"}}}'],
  },
  {
    name: 'patch --type json',
    args: ['patch', 'deploy', 'web', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/replicas","value":3}]'],
  },
  { name: 'stored after the three patches', args: ['get', 'deploy', 'web', '-o', 'json'], normalise: pickStored },
  {
    name: 'patch (strategic) $retainKeys-free delete of a list item',
    args: [
      'patch',
      'deploy',
      'web',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"P","$patch":"delete"}]}]}}}}',
    ],
  },
  { name: 'stored after the delete directive', args: ['get', 'deploy', 'web', '-o', `jsonpath={${container}.env}`] },
  {
    name: 'create deployment',
    args: ['create', 'deployment', 'api', '--image=nginx:1.27', '--port=80', '--replicas=1'],
  },
  { name: 'create job', args: ['create', 'job', 'once', '--image=busybox:1.36', '--', 'echo', 'hi'] },
  { name: 'create service clusterip', args: ['create', 'service', 'clusterip', 'api', '--tcp=80:8080'] },
  { name: 'create configmap', args: ['create', 'configmap', 'cfg', '--from-literal=a=1', '--from-literal=b=2'] },
  { name: 'stored created deployment', args: ['get', 'deploy', 'api', '-o', 'json'], normalise: pickStored },
  {
    name: 'stored created job',
    args: [
      'get',
      'job',
      'once',
      '-o',
      `jsonpath={.spec.template.spec.containers[0].command}{" "}{.spec.template.spec.restartPolicy}`,
    ],
  },
  { name: 'get deploy (columns)', args: ['get', 'deploy'], normalise: normaliseTable },
  { name: 'get deploy -o wide (columns)', args: ['get', 'deploy', '-o', 'wide'], normalise: normaliseTable },
  { name: 'get svc (columns)', args: ['get', 'svc'], normalise: normaliseTable },
  { name: 'get cm cfg (columns)', args: ['get', 'cm', 'cfg'], normalise: normaliseTable },
  { name: 'get job (columns)', args: ['get', 'job'], normalise: normaliseTable },
  { name: 'get all', args: ['get', 'all'], normalise: normaliseTable },
  { name: 'get deploy,svc -o name', args: ['get', 'deploy,svc,job', '-o', 'name'] },
  {
    name: 'create cronjob',
    args: ['create', 'cronjob', 'nightly', '--image=busybox:1.36', '--schedule=0 3 * * *', '--', 'echo', 'hi'],
  },
  { name: 'create secret generic', args: ['create', 'secret', 'generic', 'creds', '--from-literal=user=u'] },
  { name: 'create serviceaccount', args: ['create', 'serviceaccount', 'robot'] },
  { name: 'create role', args: ['create', 'role', 'reader', '--verb=get,list', '--resource=pods,configmaps'] },
  { name: 'create rolebinding', args: ['create', 'rolebinding', 'reader', '--role=reader', '--user=alice'] },
  { name: 'create quota', args: ['create', 'quota', 'q', '--hard=pods=10,cpu=2'] },
  { name: 'create pdb', args: ['create', 'pdb', 'web', '--selector=app=web', '--min-available=1'] },
  { name: 'create ingress', args: ['create', 'ingress', 'web', '--rule=web.example.com/*=web:80'] },
  { name: 'run (a Pod)', args: ['run', 'solo', '--image=busybox:1.36', '--restart=Never', '--', 'sleep', '1'] },
  { name: 'expose deployment', args: ['expose', 'deployment', 'web', '--port=80', '--target-port=8080'] },
  { name: 'autoscale deployment', args: ['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu=80%'] },
  { name: 'label', args: ['label', 'deployment', 'web', 'tier=front'] },
  { name: 'annotate', args: ['annotate', 'deployment', 'web', 'note=x'] },
  { name: 'rollout restart', args: ['rollout', 'restart', 'deployment', 'web'] },
  { name: 'set serviceaccount', args: ['set', 'serviceaccount', 'deployment', 'web', 'robot'] },
  {
    name: 'stored after label, annotate, rollout restart, set serviceaccount',
    args: [
      'get',
      'deploy',
      'web',
      '-o',
      'jsonpath={.metadata.labels}{.metadata.annotations.note}{.spec.template.spec.serviceAccountName}{.spec.template.metadata.annotations}',
    ],
    normalise: (out) => out.replace(/"\d{4}-\d\d-\d\dT[\d:]+Z"/, '(time)'),
    shows: 'kubectl.kubernetes.io/restartedAt',
  },
  {
    name: 'get the created kinds (columns)',
    args: ['get', 'cronjob,secret,role,rolebinding,quota,pdb,ingress,pod,svc,hpa'],
    normalise: normaliseTable,
  },
  { name: 'stored service from expose', args: ['get', 'svc', 'web', '-o', 'json'], normalise: pickStored },
  { name: 'replace -f', args: ['replace', '-f', 'deploy.yaml'] },
  { name: 'delete deployment', args: ['delete', 'deployment', 'api'] },
  { name: 'get deploy -o name after delete', args: ['get', 'deploy', '-o', 'name'] },
  { name: 'auth can-i create deployments', args: ['auth', 'can-i', 'create', 'deployments'] },
  { name: 'auth can-i get configmaps', args: ['auth', 'can-i', 'get', 'configmaps'] },
  { name: 'apply -f a CRD', args: ['apply', '-f', 'crd.json'], cluster: true },
  {
    name: 'wait for the CRD to be established',
    args: ['wait', '--for', 'condition=established', '--timeout=30s', `crd/${widgets}`],
    cluster: true,
  },
  { name: 'apply -f a custom resource', args: ['apply', '-f', 'widget.json'] },
  { name: 'apply -f the custom resource changed (a merge patch)', args: ['apply', '-f', 'widget-changed.json'] },
  { name: 'stored custom resource', args: ['get', widgets, 'w1', '-o', 'jsonpath={.spec}'] },
  {
    name: 'patch a custom resource (strategic): 415, exit 1',
    args: ['patch', widgets, 'w1', '-p', '{"spec":{"size":9}}'],
    stderrFirstLine: true,
    exit: 1,
    shows: 'the body of the request was in an unknown format',
  },
  {
    name: 'patch a custom resource --type merge',
    args: ['patch', widgets, 'w1', '--type', 'merge', '-p', '{"spec":{"size":9}}'],
  },
  { name: 'stored custom resource after the patches', args: ['get', widgets, 'w1', '-o', 'jsonpath={.spec}'] },
];

/** Server-side apply with field ownership: managers, a conflict, force. */
const ownershipSteps: ReadonlyArray<Step> = [
  {
    name: 'apply --server-side (alice)',
    args: ['apply', '--server-side', '--field-manager=alice', '-f', 'owned-a.yaml'],
  },
  { name: 'managers after alice', args: ['get', 'cm', 'owned', '-o', 'jsonpath={.metadata.managedFields[*].manager}'] },
  {
    name: 'apply --server-side (bob) conflicts: exit 1 naming alice',
    args: ['apply', '--server-side', '--field-manager=bob', '-f', 'owned-b.yaml'],
    stderrFirstLine: true,
  },
  {
    name: 'apply --server-side --force-conflicts (bob)',
    args: ['apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', 'owned-b.yaml'],
  },
  {
    name: 'stored after the forced apply',
    args: ['get', 'cm', 'owned', '-o', 'jsonpath={.data}{" "}{.metadata.managedFields[*].manager}'],
  },
  {
    name: 'apply --server-side of the Deployment conflicts with client-side apply and patch',
    args: ['apply', '--server-side', '-f', 'deploy.yaml'],
    stderrFirstLine: true,
  },
];

type Transcript = Array<{
  readonly step: string;
  readonly serve: Outcome;
  readonly real: Outcome;
  readonly same: boolean;
}>;

const same = (a: Outcome, b: Outcome): boolean => a.code === b.code && a.shown === b.shown;

describeWithApiServer('kubectl session: serve against kube-apiserver (differential)', (env) => {
  let dir: string;
  let server: ChildProcess | undefined;
  let output = '';
  const namespace = uniqueName('kr-kubectl');
  const transcript: Transcript = [];
  const kubeconfigs = { serve: '', real: env.kubeconfigPath };

  const runBoth = async (step: Step): Promise<{ serve: Outcome; real: Outcome }> => {
    const [serve, real] = await Promise.all(
      [kubeconfigs.serve, kubeconfigs.real].map((kubeconfig) =>
        kubectlStep(kubectlPath ?? 'kubectl', { dir, kubeconfig, namespace }, step),
      ),
    );
    if (serve === undefined || real === undefined) throw new Error('no outcome');
    transcript.push({ step: step.name, serve, real, same: same(serve, real) });
    return { serve, real };
  };

  beforeAll(async () => {
    if (!hasKubectl) return;
    dir = mkdtempSync(join(tmpdir(), 'kreconcile-kubectl-diff-'));
    kubeconfigs.serve = join(dir, 'serve-kubeconfig');
    writeFileSync(join(dir, 'deploy.yaml'), DEPLOYMENT);
    writeFileSync(join(dir, 'deploy-changed.yaml'), changed);
    writeFileSync(join(dir, 'crd.json'), crd);
    writeFileSync(join(dir, 'widget.json'), widget(1, ['a', 'b']));
    writeFileSync(join(dir, 'widget-changed.json'), widget(2, ['c']));
    writeFileSync(join(dir, 'owned-a.yaml'), owned('a'));
    writeFileSync(join(dir, 'owned-b.yaml'), owned('b'));
    writeFileSync(join(dir, 'editor.sh'), '#!/bin/sh\nsed -i "$KREC_SED" "$1"\n');
    chmodSync(join(dir, 'editor.sh'), 0o755);
    server = spawn(
      process.execPath,
      ['app/cli/kreconcile.js', 'serve', '--log-level', 'warn', '--write-kubeconfig', kubeconfigs.serve],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(() => expect(output).toContain('kubeconfig written'), 60_000);
    const created = await runBoth({
      name: 'create namespace',
      args: ['create', 'namespace', namespace],
      cluster: true,
    });
    expect(created.serve).toEqual(created.real);
  }, 90_000);

  afterAll(async () => {
    if (hasKubectl && dir !== undefined) {
      await kubectlStep(
        kubectlPath ?? 'kubectl',
        { dir, kubeconfig: kubeconfigs.real, namespace },
        {
          name: 'cleanup',
          args: ['delete', 'namespace', namespace, '--wait=false'],
          cluster: true,
        },
      );
      rmSync(dir, { recursive: true, force: true });
    }
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    const rows = transcript.map(
      (t) => `${t.same ? 'same     ' : 'DIFFERENT'}  exit ${t.serve.code}/${t.real.code}  ${t.step}`,
    );
    console.log(
      `kubectl session transcript (serve/real), ${transcript.filter((t) => t.same).length} of ${transcript.length} steps the same:\n${rows.join('\n')}`,
    );
  });

  it.skipIf(!hasKubectl).each(steps.map((step, i) => [`${i + 1}: ${step.name}`, step] as const))(
    '%s',
    async (_, step) => {
      const { serve, real } = await runBoth(step);
      expect({ code: serve.code, shown: serve.shown }).toEqual({ code: real.code, shown: real.shown });
      expect(real.code).toBe(step.exit ?? 0);
      if (step.shows !== undefined) expect(real.shown).toContain(step.shows);
    },
  );

  it.skipIf(!hasKubectl)(
    'server-side apply: a conflict naming the manager, then --force-conflicts',
    async (context) => {
      const outcomes = [];
      for (const step of ownershipSteps) outcomes.push({ step, ...(await runBoth(step)) });
      for (const { serve, real } of outcomes)
        expect({ code: serve.code, shown: serve.shown }).toEqual({ code: real.code, shown: real.shown });
      expect(outcomes[2]?.real.shown).toContain('conflict with "alice": .data.mode');
    },
  );
});
