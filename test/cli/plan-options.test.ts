/**
 * The flags `plan` and `fleet-plan` share, decoded by pure functions (app/cli/commands/plan-options.ts
 * and `decodePlanOptions` in plan.ts): the time, the cluster to read, every usage problem at once.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { showCliError } from '../../app/cli/cli-error.js';
import { decodePlanOptions } from '../../app/cli/commands/plan.js';
import { decodeSharedFlags, type SharedPlanFlags } from '../../app/cli/commands/plan-options.js';
import { runCli } from './support/run-cli.js';

const FLAGS: SharedPlanFlags = {
  filename: ['app.yaml'],
  snapshot: [],
  namespace: 'default',
  output: 'text',
  crd: [],
  approve: [],
};
const PLAN = { ...FLAGS, simulateUnready: [], toscaFileRoot: [], toscaAllowHost: [] };
const CLOCK = () => new Date('2026-03-02T12:34:56.789Z');
const NO_ENV = {};

const messages = <A>(result: E.Either<ReadonlyArray<Parameters<typeof showCliError>[0]>, A>): ReadonlyArray<string> =>
  E.isLeft(result) ? result.left.map(showCliError) : [];

describe('decodeSharedFlags', () => {
  it('plans now, to the second, against nothing without a cluster named or KUBECONFIG', () => {
    expect(decodeSharedFlags(FLAGS, NO_ENV, CLOCK)).toEqual(E.right({ now: '2026-03-02T12:34:56Z' }));
  });

  it('reads the cluster of KUBECONFIG as kubectl does, unless a snapshot or --offline says otherwise', () => {
    const env = { KUBECONFIG: '/home/me/.kube/config' };
    expect(decodeSharedFlags(FLAGS, env, CLOCK)).toEqual(E.right({ now: '2026-03-02T12:34:56Z', target: {} }));
    expect(decodeSharedFlags({ ...FLAGS, snapshot: ['live.yaml'] }, env, CLOCK)).toEqual(
      E.right({ now: '2026-03-02T12:34:56Z' }),
    );
    expect(decodeSharedFlags({ ...FLAGS, offline: true }, env, CLOCK)).toEqual(
      E.right({ now: '2026-03-02T12:34:56Z' }),
    );
    expect(
      decodeSharedFlags({ ...FLAGS, context: 'prod', kubeconfig: 'kc', now: '2026-01-31T12:00:00Z' }, env, CLOCK),
    ).toEqual(E.right({ now: '2026-01-31T12:00:00Z', target: { kubeconfigPath: 'kc', context: 'prod' } }));
  });

  it('reports every problem at once, one line each', () => {
    expect(
      messages(
        decodeSharedFlags(
          {
            ...FLAGS,
            filename: ['-'],
            snapshot: ['-'],
            context: 'prod',
            offline: true,
            approve: ['sha256:00'],
          },
          NO_ENV,
          CLOCK,
        ),
      ),
    ).toEqual([
      'error: --snapshot and --kubeconfig/--context exclude each other: plan against a recording or the live cluster, not both',
      'error: --approve and --approvals-file approve what --guard denies: give --guard',
      'error: --offline plans against an empty cluster: leave out --kubeconfig/--context, or --offline',
      'error: standard input (-) can be read only once: name it in one -f or --snapshot',
    ]);
    expect(messages(decodeSharedFlags({ ...FLAGS, now: 'yesterday' }, NO_ENV, CLOCK))).toEqual([
      'error: --now "yesterday" is not an RFC 3339 time: write e.g. 2026-01-31T12:00:00Z',
    ]);
  });
});

describe('decodePlanOptions', () => {
  it('decodes the TOSCA access and --as-application, keeping the flags as given', () => {
    const decoded = decodePlanOptions({ ...PLAN, asApplication: 'web', now: '2026-01-31T12:00:00Z' }, NO_ENV, CLOCK);
    expect(decoded).toEqual(
      E.right({
        now: '2026-01-31T12:00:00Z',
        flags: { ...PLAN, asApplication: 'web', now: '2026-01-31T12:00:00Z' },
        tosca: { fetch: false, fileRoots: [], allowHttp: false, allowHosts: [] },
        plainManifests: { mode: 'application', name: 'web' },
      }),
    );
  });

  it("puts plan's own problems with the shared ones: no -f, --server-dry-run without a cluster", () => {
    expect(
      messages(decodePlanOptions({ ...PLAN, filename: [], serverDryRun: true, snapshot: ['-'] }, NO_ENV, CLOCK)),
    ).toEqual([
      'error: name the Applications to plan with -f app.yaml (see kreconcile plan --help)',
      'error: --server-dry-run sends the plan to a cluster: give it with --kubeconfig or --context',
    ]);
    expect(messages(decodePlanOptions({ ...PLAN, toscaAllowHttp: true }, NO_ENV, CLOCK))).toEqual([
      'error: --tosca-allow-http loosens how templates are fetched: add --allow-tosca-fetch to fetch them',
    ]);
  });

  it('plan and fleet-plan refuse the same flag combinations with the same line', async () => {
    const args = ['--snapshot', 'live.yaml', '--context', 'prod', '--now', '2026-01-31T12:00:00Z'];
    const planned = await runCli(['plan', '-f', 'app.yaml', ...args]);
    const fleet = await runCli(['fleet-plan', ...args]);
    expect(planned).toMatchObject({ code: 1, stdout: '' });
    expect(fleet).toEqual(planned);
  });
});
