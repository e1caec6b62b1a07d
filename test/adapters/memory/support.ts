/** Helpers for the memory adapter's unit tests: unwrap answers, record watches, build objects. */
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import type { Resource } from '../../../core/model/resource.js';
import type { Cluster, WatchEvent, WatchQuery } from '../../../core/ports/cluster.js';
import { showClusterError, type ClusterError } from '../../../core/ports/errors.js';

export const must = async <A>(task: TE.TaskEither<ClusterError, A>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(`expected success, got ${showClusterError(result.left)}`);
  return result.right;
};

export const failure = async <A>(task: TE.TaskEither<ClusterError, A>): Promise<ClusterError> => {
  const result = await task();
  if (E.isRight(result)) throw new Error('expected an error, got success');
  return result.left;
};

export const configMap = (name: string, data: Record<string, string> = {}, namespace = 'default'): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

export const cmRef = (name: string, namespace = 'default') => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name,
  namespace,
});

export type Recorder = {
  readonly events: WatchEvent[];
  readonly closes: Array<ClusterError | undefined>;
  stop(): void;
};

export const record = (cluster: Cluster, query: WatchQuery): Recorder => {
  const events: WatchEvent[] = [];
  const closes: Array<ClusterError | undefined> = [];
  const handle = cluster.watch(query, {
    event: (e) => {
      events.push(e);
    },
    closed: (e) => {
      closes.push(e);
    },
  });
  return { events, closes, stop: () => handle.stop() };
};

export const names = (events: ReadonlyArray<WatchEvent>): ReadonlyArray<string> =>
  events.flatMap((e) => (e.type === 'BOOKMARK' ? [] : [`${e.type}:${e.object.metadata.name}`]));
