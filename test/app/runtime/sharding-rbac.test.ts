/**
 * `kreconcile rbac --shards n`: a Role in the operator namespace whose Lease updates are limited to the shard and
 * member Leases.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { shardingRbac } from '../../../app/manifests/rbac.js';
import { runCli } from '../../cli/support/run-cli.js';

describe('sharding RBAC', () => {
  it('updates only kreconcile-shard-<i> and kreconcile-member-<i> for i < n; lists and creates Leases in its namespace only', () => {
    const [role, binding] = shardingRbac('ops', 3) as unknown as [
      { kind: string; metadata: { namespace: string }; rules: Array<{ verbs: string[]; resourceNames?: string[] }> },
      { kind: string; subjects: unknown[] },
    ];
    expect(role.kind).toBe('Role');
    expect(role.metadata.namespace).toBe('ops');
    expect(role.rules.find((rule) => rule.verbs.includes('update'))?.resourceNames).toEqual([
      'kreconcile-shard-0',
      'kreconcile-member-0',
      'kreconcile-shard-1',
      'kreconcile-member-1',
      'kreconcile-shard-2',
      'kreconcile-member-2',
    ]);
    expect(role.rules.find((rule) => rule.resourceNames === undefined)?.verbs).toEqual(['get', 'list', 'create']);
    expect(binding).toMatchObject({
      kind: 'RoleBinding',
      subjects: [{ kind: 'ServiceAccount', name: 'kreconcile', namespace: 'ops' }],
    });
  });

  it('the rbac command adds them with --shards, and refuses a bad count in one line', async () => {
    const plain = await runCli(['rbac', '-n', 'ops']);
    const sharded = await runCli(['rbac', '-n', 'ops', '--shards', '2']);
    const kinds = (text: string) => text.split(/^---$/m).map((doc) => (parse(doc) as { kind: string }).kind);
    // The same documents plus the shard leases' Role and RoleBinding (where they go in the stream is not the point).
    const sorted = (list: ReadonlyArray<string>) => [...list].sort();
    expect(sorted(kinds(sharded.stdout))).toEqual(sorted([...kinds(plain.stdout), 'Role', 'RoleBinding']));
    const bad = await runCli(['rbac', '--shards', '0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      "error: option '--shards <n>' argument '0' is invalid. expected a whole number from 1 to 1024 (see --help)\n",
    );
  });
});
