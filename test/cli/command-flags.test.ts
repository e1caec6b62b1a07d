/** `serve`, `snapshot` and `apply` decode their flags before they read or connect (issue 40 item 2). */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { decodeApplyFlags } from '../../app/cli/commands/apply.js';
import { decodeServeFlags, type ServeFlags } from '../../app/cli/commands/serve.js';
import { decodeSnapshotFlags, type SnapshotFlags } from '../../app/cli/commands/snapshot.js';

const messages = <A>(decoded: E.Either<ReadonlyArray<{ readonly message: string }>, A>): ReadonlyArray<string> =>
  E.isLeft(decoded) ? decoded.left.map((error) => error.message) : [];

describe('decodeServeFlags', () => {
  const serve = (port: string): ServeFlags => ({
    filename: [],
    snapshot: [],
    namespace: 'default',
    port,
    writeKubeconfig: 'k.kubeconfig',
    logLevel: 'info',
  });

  it('reads the port as a number, 0 included', () => {
    expect(decodeServeFlags(serve('6443'))).toMatchObject(E.right({ port: 6443, writeKubeconfig: 'k.kubeconfig' }));
    expect(decodeServeFlags(serve('0'))).toMatchObject(E.right({ port: 0 }));
  });

  it('refuses what is not a port, naming the flag and what to write', () => {
    for (const port of ['65536', '-1', '80a', '', '1e3'])
      expect(messages(decodeServeFlags(serve(port)))).toEqual([
        `--port ${port}: expected a port number (0 to 65535; 0 picks a free one)`,
      ]);
  });
});

describe('decodeSnapshotFlags', () => {
  const snapshot = (overrides: Partial<SnapshotFlags> = {}): SnapshotFlags => ({
    filename: ['app.yaml'],
    namespace: 'default',
    output: 'yaml',
    toscaAllowHost: [],
    toscaFileRoot: [],
    ...overrides,
  });

  it('decodes the cluster target and the TOSCA access', () => {
    const decoded = decodeSnapshotFlags(snapshot({ kubeconfig: '/k', context: 'prod' }));
    expect(decoded).toMatchObject(E.right({ target: { kubeconfigPath: '/k', context: 'prod' } }));
    expect(E.isRight(decoded) && decoded.right.tosca.fetch).toBe(false);
  });

  it('reports a missing -f and a loosened fetch without --allow-tosca-fetch together', () => {
    expect(messages(decodeSnapshotFlags(snapshot({ filename: [], toscaAllowHttp: true })))).toEqual([
      'name the Applications to record with -f app.yaml (see kreconcile snapshot --help)',
      expect.stringContaining('--tosca-allow-http loosens how templates are fetched'),
    ]);
  });
});

describe('decodeApplyFlags', () => {
  it('refuses approvals without the guard they approve against', () => {
    const refused = 'approve what --guard denies: give --guard';
    expect(messages(decodeApplyFlags({ approve: ['sha256:ab'] }))).toEqual([expect.stringContaining(refused)]);
    expect(messages(decodeApplyFlags({ approve: [], approvalsFile: 'a.txt' }))).toEqual([
      expect.stringContaining(refused),
    ]);
  });

  it('decodes the target, with and without a guard', () => {
    expect(decodeApplyFlags({ approve: [], guard: 'g.yaml', context: 'prod' })).toMatchObject(
      E.right({ guard: 'g.yaml', target: { context: 'prod' } }),
    );
    expect(decodeApplyFlags({ approve: [] })).toMatchObject(E.right({ target: {} }));
  });
});
