/**
 * Running one kubectl step against a server and normalising what it printed, for the session
 * differential (test/integration/kubectl-session-differential.test.ts): what differs between two
 * servers for reasons that are not the API's (file names kubectl diff picks, times, ages, the IP
 * ranges the servers allocate from, status that needs a kubelet) is masked; the rest is kept.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { isJsonObject, parseJsonText, type JsonObject, type JsonValue } from '../../core/json/json.js';

/** One kubectl invocation; `-n <namespace>` is added unless the step is cluster-wide. */
export type Step = {
  readonly name: string;
  readonly args: ReadonlyArray<string>;
  /** A sed expression `EDITOR` runs on the file kubectl edit opens. */
  readonly editor?: string;
  /** Compare the first line of stderr instead of stdout (a refusal's message). */
  readonly stderrFirstLine?: boolean;
  readonly cluster?: boolean;
  /** The exit code the real server's session gives (0 unless said). */
  readonly exit?: number;
  /** Text the real server's (normalised) output holds: what the step is for, besides being the same. */
  readonly shows?: string;
  readonly normalise?: (stdout: string) => string;
};

export type Outcome = { readonly code: number | null; readonly shown: string };

export type Target = { readonly dir: string; readonly kubeconfig: string; readonly namespace: string };

export const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        env:
        - name: MODE
          value: fast
        ports:
        - containerPort: 8080
          name: http
        resources:
          requests:
            cpu: 1000m
            memory: 64Mi
`;

/** Runs the step with kubectl in `target.dir` (where the step's files are). */
export const kubectlStep = (kubectl: string, target: Target, step: Step): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      KUBECONFIG: target.kubeconfig,
      HOME: target.dir,
      NO_COLOR: '1',
      KUBE_EDITOR: '',
      EDITOR: join(target.dir, 'editor.sh'),
      KREC_SED: step.editor ?? '',
    };
    const args = step.cluster === true ? step.args : ['-n', target.namespace, ...step.args];
    const child = spawn(kubectl, args, { cwd: target.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const shown = step.stderrFirstLine === true ? (stderr.split('\n')[0] ?? '') : (step.normalise ?? String)(stdout);
      resolve({ code, shown });
    });
  });

/** `kubectl diff`'s output without its temporary file names, their times and server-set values. */
export const normaliseDiff = (stdout: string): string =>
  stdout
    .replace(/\/tmp\/(LIVE|MERGED)-\d+/g, '/tmp/$1')
    .replace(/^(---|\+\+\+) (\S+)\t.*$/gm, '$1 $2')
    .replace(/creationTimestamp: "[^"]*"/g, 'creationTimestamp: (time)')
    .replace(/resourceVersion: "\d+"/g, 'resourceVersion: (version)')
    .replace(/uid: [0-9a-f-]+/g, 'uid: (uid)');

/**
 * Columns whose values need what neither server runs the same way: status a kubelet and the
 * workload controllers write (the shared real server runs neither; serve simulates them), and
 * times (ages; a creation time can fall in another second on the other server).
 */
const MASKED_COLUMNS = new Set([
  'AGE',
  'CREATED AT',
  'READY',
  'UP-TO-DATE',
  'AVAILABLE',
  'STATUS',
  'COMPLETIONS',
  'DURATION',
]);

const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

/** A header's columns and where each starts (kubectl pads columns with 3 spaces; names have single spaces). */
const columnsOf = (header: string): ReadonlyArray<{ readonly name: string; readonly start: number }> =>
  [...header.matchAll(/\S+(?: \S+)*/g)].map((match) => ({ name: match[0], start: match.index }));

/**
 * A `kubectl get` table (or several, `get all`) as rows of cells, cut where the header's columns
 * start (a cell may hold spaces: a cron schedule): masked columns blanked, cluster IPs (allocated
 * from different ranges) shown as `(ip)`, and the real controller-manager's `kube-root-ca.crt`
 * ConfigMap left out (serve publishes none).
 */
export const normaliseTable = (stdout: string): string => {
  let columns: ReturnType<typeof columnsOf> = [];
  const rows: string[] = [];
  for (const line of stdout.split('\n')) {
    if (line.startsWith('NAME ')) {
      columns = columnsOf(line);
      rows.push(columns.map((column) => column.name).join(' | '));
      continue;
    }
    if (line.trim() === '' || line.split(/\s/)[0]?.endsWith('kube-root-ca.crt') === true) {
      rows.push('');
      continue;
    }
    const cells = columns.map((column, i) => line.slice(column.start, columns[i + 1]?.start).trim());
    const shown = cells.map((cell, i) =>
      MASKED_COLUMNS.has(columns[i]?.name ?? '') ? '*' : IPV4.test(cell) ? '(ip)' : cell,
    );
    rows.push(shown.join(' | '));
  }
  return rows.join('\n');
};

const pick = (object: JsonValue | undefined, keys: ReadonlyArray<string>): JsonObject => {
  const picked: Record<string, JsonValue> = {};
  for (const key of keys) if (isJsonObject(object) && object[key] !== undefined) picked[key] = object[key];
  return picked;
};

/** A Service's spec with its allocated cluster IPs as `(ip)`: the servers allocate from different ranges. */
const withoutClusterIps = (spec: JsonValue | undefined): JsonValue => {
  if (!isJsonObject(spec)) return spec ?? null;
  const masked = (ip: JsonValue): JsonValue => (typeof ip === 'string' && IPV4.test(ip) ? '(ip)' : ip);
  return {
    ...spec,
    ...(spec.clusterIP === undefined ? {} : { clusterIP: masked(spec.clusterIP) }),
    ...(Array.isArray(spec.clusterIPs) ? { clusterIPs: spec.clusterIPs.map(masked) } : {}),
  };
};

/**
 * What a step stored, from `-o json`: the spec, and the metadata a user or kubectl writes (labels,
 * annotations but the controller's revision, generation); not the server's uid, times, versions,
 * nor cluster IPs.
 */
export const pickStored = (stdout: string): string => {
  const object = parseJsonText(stdout);
  if (!isJsonObject(object)) return stdout;
  const metadata = pick(object.metadata, ['labels', 'annotations', 'generation']);
  const annotations = isJsonObject(metadata.annotations) ? { ...metadata.annotations } : undefined;
  if (annotations !== undefined) delete annotations['deployment.kubernetes.io/revision'];
  const shown = { spec: withoutClusterIps(object.spec), metadata: { ...metadata, annotations: annotations ?? null } };
  return JSON.stringify(shown, null, 1);
};
