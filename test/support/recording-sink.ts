/** A WatchSink that records what it receives, for assertions on a stream's history. */
import type { WatchEvent, WatchSink } from '../../core/ports/cluster.js';
import type { ClusterError } from '../../core/ports/errors.js';

export type RecordingSink = WatchSink & {
  readonly events: WatchEvent[];
  readonly closes: Array<ClusterError | undefined>;
  /** Names of objects in ADDED/MODIFIED/DELETED events, as `TYPE name`. */
  seen(): ReadonlyArray<string>;
};

export const recordingSink = (onEvent?: (event: WatchEvent) => void): RecordingSink => {
  const events: WatchEvent[] = [];
  const closes: Array<ClusterError | undefined> = [];
  return {
    events,
    closes,
    event: (event) => {
      events.push(event);
      onEvent?.(event);
    },
    closed: (error) => {
      closes.push(error);
    },
    seen: () => events.flatMap((e) => (e.type === 'BOOKMARK' ? [] : [`${e.type} ${e.object.metadata.name}`])),
  };
};
