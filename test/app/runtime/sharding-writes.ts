/**
 * Which replica sent each write, for which Application, and when it was sent and answered: the
 * sharding tests check from this that no two replicas ever wrote for one Application at once.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { APPLICATION_KIND, type Cluster, type ClusterError } from '../../../core/internal.js';

export type Write = {
  readonly replica: string;
  readonly verb: string;
  /** `Kind/namespace/name`. */
  readonly object: string;
  readonly sentAt: number;
  answeredAt: number;
  ok: boolean;
};

/**
 * `cluster` recording every write it sends into `writes` (reads pass through); `onSent` sees each
 * write at the moment it is sent, before the server has it (to check the world as it is then).
 */
export const recordingCluster = (
  cluster: Cluster,
  replica: string,
  writes: Write[],
  now: () => number = () => Date.now(),
  onSent?: (write: Write) => void,
): Cluster => {
  const record =
    <T>(
      verb: string,
      kind: string,
      namespace: string | undefined,
      name: string,
      send: TE.TaskEither<ClusterError, T>,
    ): TE.TaskEither<ClusterError, T> =>
    async () => {
      const write: Write = {
        replica,
        verb,
        object: `${kind}/${namespace ?? ''}/${name}`,
        sentAt: now(),
        answeredAt: Number.NaN,
        ok: false,
      };
      writes.push(write);
      onSent?.(write);
      const answer = await send();
      write.answeredAt = now();
      write.ok = E.isRight(answer);
      return answer;
    };
  return {
    ...cluster,
    get: (ref) => cluster.get(ref),
    list: (query) => cluster.list(query),
    watch: (query, sink) => cluster.watch(query, sink),
    scopeOf: (apiVersion, kind) => cluster.scopeOf(apiVersion, kind),
    create: (object, options) =>
      record('create', object.kind, object.metadata.namespace, object.metadata.name, cluster.create(object, options)),
    update: (object, options) =>
      record('update', object.kind, object.metadata.namespace, object.metadata.name, cluster.update(object, options)),
    patch: (ref, patch, options) =>
      record('patch', ref.kind, ref.namespace, ref.name, cluster.patch(ref, patch, options)),
    delete: (ref, options) => record('delete', ref.kind, ref.namespace, ref.name, cluster.delete(ref, options)),
    patchStatus: (ref, patch) =>
      record('patchStatus', ref.kind, ref.namespace, ref.name, cluster.patchStatus(ref, patch)),
    updateStatus: (object) =>
      record(
        'updateStatus',
        object.kind,
        object.metadata.namespace,
        object.metadata.name,
        cluster.updateStatus(object),
      ),
  };
};

/**
 * The Application a write was for: the Application itself, or a child named `<app>-config`, `<app>-flags` or
 * `<app>-web` (the model's).
 */
export const applicationOfWrite = (write: Write): string | undefined => {
  const [kind, namespace, name] = write.object.split('/') as [string, string, string];
  if (kind === APPLICATION_KIND) return `${namespace}/${name}`;
  const child = /^(.+)-(config|flags|web)$/.exec(name);
  if (child !== null && ['ConfigMap', 'Deployment', 'Service'].includes(kind)) return `${namespace}/${child[1]}`;
  return undefined;
};

/**
 * Writes for one Application sent by a replica while another replica's write for it was still in
 * flight: none may exist (one replica at a time). Returns them as readable lines.
 */
export const concurrentWrites = (writes: ReadonlyArray<Write>): ReadonlyArray<string> => {
  const byApplication = new Map<string, Write[]>();
  for (const write of writes) {
    const key = applicationOfWrite(write);
    if (key !== undefined) byApplication.set(key, [...(byApplication.get(key) ?? []), write]);
  }
  const found: string[] = [];
  for (const [key, list] of byApplication) {
    const ordered = [...list].sort((a, b) => a.sentAt - b.sentAt);
    ordered.forEach((write, i) => {
      const overlapping = ordered
        .slice(0, i)
        .find((earlier) => earlier.replica !== write.replica && !(earlier.answeredAt <= write.sentAt));
      if (overlapping !== undefined)
        found.push(
          `${key}: ${write.replica} ${write.verb} ${write.object} while ${overlapping.replica} ${overlapping.verb} ${overlapping.object} was in flight`,
        );
    });
  }
  return found;
};
