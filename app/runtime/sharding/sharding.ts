/**
 * Sharding as the operator runs it: the options (`--shard i --shards n` static, or
 * `--sharding lease --shards n`), their validation, and the ownership they produce.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Clock, ClusterReader, ClusterWriter } from '../../../core/internal.js';
import type { Logger } from '../../logging/logger.js';
import { staticShard, type ShardOwnership } from './ownership.js';
import { ShardLeases } from './shard-leases.js';

export type ShardingOptions =
  | { readonly mode: 'static'; readonly shard: number; readonly shards: number }
  | {
      readonly mode: 'lease';
      readonly shards: number;
      /** Namespace of the shard and member Leases (the operator's). */
      readonly namespace: string;
      readonly identity: string;
      readonly leaseDurationMs?: number;
      readonly retryPeriodMs?: number;
      /** Monotonic ms for lease expiry (default `clock.now`; the CLI passes `performance.now`). */
      readonly monotonic?: () => number;
    };

export type Sharding = {
  readonly ownership: ShardOwnership;
  start(): void;
  /**
   * Releases what is held (Lease mode), so the other replicas take over at once; with
   * `release: false` (writes may still be on their way) stops renewing and lets the Leases expire.
   */
  stop(options?: { readonly release?: boolean }): Promise<void>;
};

export const createSharding = (
  options: ShardingOptions,
  deps: { readonly cluster: ClusterReader & ClusterWriter; readonly clock: Clock; readonly logger: Logger },
): Sharding => {
  if (options.mode === 'static')
    return {
      ownership: staticShard(options.shard, options.shards),
      start: () => undefined,
      stop: () => Promise.resolve(),
    };
  const leases = new ShardLeases({ ...deps, ...options });
  return {
    ownership: leases,
    start: () => leases.start(),
    stop: async (stopOptions) => {
      if (stopOptions?.release === false) leases.halt();
      else await leases.stop();
    },
  };
};

/** The sharding flags as given (strings from the command line). */
export type ShardingFlags = {
  readonly shards?: string;
  readonly shard?: string;
  readonly sharding?: string;
  readonly leaderElect?: boolean;
};

/** The largest shard count accepted (each shard costs two Leases and a little renewal traffic). */
export const MAX_SHARDS = 1_024;

const count = (text: string, flag: string, min: number, max: number): E.Either<string, number> => {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  return Number.isInteger(value) && value >= min && value <= max
    ? E.right(value)
    : E.left(`${flag} ${text}: expected a whole number from ${min} to ${max}`);
};

/**
 * Checks the sharding flags together; `undefined` when sharding is off.
 * Errors: one line naming the flag and what to give instead.
 */
export const shardingFromFlags = (
  flags: ShardingFlags,
  lease: { readonly namespace: string; readonly identity: string },
): E.Either<string, ShardingOptions | undefined> => {
  if (flags.shards === undefined) {
    if (flags.shard !== undefined) return E.left('--shard needs --shards <n> (how many shards there are)');
    if (flags.sharding !== undefined) return E.left('--sharding lease needs --shards <n> (how many shards there are)');
    return E.right(undefined);
  }
  const shards = count(flags.shards, '--shards', 1, MAX_SHARDS);
  if (E.isLeft(shards)) return shards;
  if (flags.leaderElect === true)
    return E.left(
      '--shards and --leader-elect do not go together: each shard has its own Lease already (drop --leader-elect)',
    );
  if (flags.shard !== undefined && flags.sharding !== undefined)
    return E.left('--shard <i> (static) and --sharding lease (dynamic) exclude each other: give one');
  if (flags.shard !== undefined) {
    const shard = count(flags.shard, '--shard', 0, shards.right - 1);
    return E.isLeft(shard) ? shard : E.right({ mode: 'static', shard: shard.right, shards: shards.right });
  }
  if (flags.sharding === 'lease') return E.right({ mode: 'lease', shards: shards.right, ...lease });
  return E.left(
    flags.sharding === undefined
      ? '--shards needs --shard <i> (static: this process runs shard i) or --sharding lease (replicas share the shards through Leases)'
      : `--sharding ${flags.sharding}: the only mode is lease (for static shards give --shard <i>)`,
  );
};
