/** The sharding flags: checked together, one clear line per mistake; and as the CLI rejects them. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { shardingFromFlags } from '../../../app/runtime/sharding/sharding.js';
import { runCli } from '../../cli/support/run-cli.js';

const lease = { namespace: 'kreconcile-system', identity: 'pod-0' };

describe('shardingFromFlags', () => {
  it('off without --shards; static with --shard; Leases with --sharding lease', () => {
    expect(shardingFromFlags({}, lease)).toEqual(E.right(undefined));
    expect(shardingFromFlags({ shards: '3', shard: '2' }, lease)).toEqual(
      E.right({ mode: 'static', shard: 2, shards: 3 }),
    );
    expect(shardingFromFlags({ shards: '12', sharding: 'lease' }, lease)).toEqual(
      E.right({ mode: 'lease', shards: 12, ...lease }),
    );
  });

  it.each([
    [{ shard: '1' }, '--shard needs --shards'],
    [{ sharding: 'lease' }, '--sharding lease needs --shards'],
    [{ shards: '3' }, '--shards needs --shard <i>'],
    [{ shards: '0', shard: '0' }, '--shards 0: expected a whole number from 1 to 1024'],
    [{ shards: 'many', sharding: 'lease' }, '--shards many: expected a whole number'],
    [{ shards: '3', shard: '3' }, '--shard 3: expected a whole number from 0 to 2'],
    [{ shards: '3', shard: '-1' }, '--shard -1: expected a whole number'],
    [{ shards: '3', shard: '1', sharding: 'lease' }, 'exclude each other'],
    [{ shards: '3', sharding: 'lease', leaderElect: true }, 'do not go together'],
  ])('%o is refused: %s', (flags, message) => {
    const result = shardingFromFlags(flags, lease);
    expect(E.isLeft(result) && result.left).toContain(message);
  });

  it('the CLI refuses a bad combination with one line and exit code 1, before connecting anywhere', async () => {
    const result = await runCli(['run', '--memory', '-f', 'examples/webapp/app.yaml', '--shards', '3', '--shard', '5']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--shard 5: expected a whole number from 0 to 2');
    expect(result.stderr).not.toContain('    at ');
  });
});
