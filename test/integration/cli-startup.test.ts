/**
 * `kreconcile run`'s startup check against a real API server: a valid account on a cluster
 * serving Applications passes; refused credentials are one line naming a 401, exit 1, before
 * the operator starts (the mapping the unit tests check with a fake, here through client-node).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { parse, stringify } from 'yaml';
import { afterAll, expect, it } from 'vitest';
import { checkCluster } from '../../app/cli/live/startup-check.js';
import { applicationCrd } from '../../app/manifests/crd.js';
import { linesOf, runCli } from '../cli/support/run-cli.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer } from '../support/kubernetes-env.js';

const scratch = mkdtempSync(join(tmpdir(), 'kreconcile-cli-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describeWithApiServer('kreconcile run startup against a real API server', (env) => {
  it('passes for the test account once the Application CRD is served', async () => {
    const cluster = connect(env);
    const created = await cluster.create(applicationCrd())();
    if (E.isLeft(created)) expect(created.left._tag).toBe('AlreadyExists');
    // A new CRD is served once established.
    await eventually(async () => expect(await checkCluster(cluster, 'default')).toEqual(E.right(undefined)));
  });

  it('refused credentials: one line naming the 401, exit 1, nothing started', async () => {
    const kubeconfig = parse(readFileSync(env.kubeconfigPath, 'utf8')) as {
      users: Array<{ name: string; user: Record<string, unknown> }>;
    };
    const forged = {
      ...kubeconfig,
      users: kubeconfig.users.map((user) => ({ name: user.name, user: { token: 'not-a-token-this-server-knows' } })),
    };
    const path = join(scratch, 'forged-kubeconfig');
    writeFileSync(path, stringify(forged));
    const result = await runCli(['run', '--kubeconfig', path], { env: { HOME: scratch } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(linesOf(result.stderr)).toEqual([
      expect.stringMatching(
        /^error: the cluster rejected the credentials \(401 .*\): check the kubeconfig user, token or certificate$/,
      ),
    ]);
  });
});
