/** `kreconcile rbac` and `deploy` flags decoded on their own (issue 40 item 2): every usage problem at once. */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { decodeRbacFlags, type RbacFlags } from '../../app/cli/commands/rbac-options.js';

const flags = (overrides: Partial<RbacFlags> = {}): RbacFlags => ({
  namespace: 'kreconcile-system',
  filename: [],
  childKind: [],
  tenantNamespace: [],
  impersonation: 'off',
  garbageCollectorUser: [],
  output: 'yaml',
  ...overrides,
});

const messages = (decoded: ReturnType<typeof decodeRbacFlags>): ReadonlyArray<string> =>
  E.isLeft(decoded) ? decoded.left.map((error) => error.message) : [];

describe('decodeRbacFlags', () => {
  it('decodes the defaults and the named kinds, tenant namespaces and shard count', () => {
    expect(decodeRbacFlags(flags())).toEqual(
      E.right({
        namespace: 'kreconcile-system',
        impersonation: 'off',
        childKinds: [],
        applicationFiles: [],
        recursive: false,
        tenantNamespaces: [],
        output: 'yaml',
      }),
    );
    const decoded = decodeRbacFlags(
      flags({ childKind: ['apps/v1/Deployment', 'v1/ConfigMap'], tenantNamespace: ['team-a'], shards: '4' }),
    );
    expect(decoded).toMatchObject(
      E.right({
        childKinds: [
          { apiVersion: 'apps/v1', kind: 'Deployment' },
          { apiVersion: 'v1', kind: 'ConfigMap' },
        ],
        tenantNamespaces: ['team-a'],
        shards: 4,
      }),
    );
  });

  it('reports every problem at once: unconfirmed -f, a bad ServiceAccount, each bad kind, a bad shard count', () => {
    const problems = messages(
      decodeRbacFlags(
        flags({
          filename: ['apps.yaml'],
          defaultServiceAccount: 'Not_A_Name',
          childKind: ['Deployment', 'apps/v1/Deployment', 'v1/configmap'],
          shards: '0',
        }),
      ),
    );
    expect(problems).toEqual([
      expect.stringContaining('add --kinds-from-applications'),
      '--default-service-account Not_A_Name: not a ServiceAccount name',
      expect.stringContaining('--child-kind Deployment: expected apiVersion/Kind'),
      expect.stringContaining('--child-kind v1/configmap: expected apiVersion/Kind'),
      expect.stringContaining('--shards 0: expected a whole number from 1 to'),
    ]);
  });

  it('refuses child rights beside --impersonation required, and accepts -f once confirmed', () => {
    expect(messages(decodeRbacFlags(flags({ impersonation: 'required', childKind: ['v1/Secret'] })))).toEqual([
      expect.stringContaining('--impersonation required grants the operator no child rights'),
    ]);
    expect(
      decodeRbacFlags(flags({ filename: ['a.yaml'], kindsFromApplications: true, recursive: true })),
    ).toMatchObject(E.right({ applicationFiles: ['a.yaml'], recursive: true }));
  });
});
