/**
 * `kreconcile validate`'s flags decoded on their own (decodeValidateFlags): how templates are
 * fetched, how plain manifests are read, which cluster's schemas, and the one-line flag errors.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decodeValidateFlags, type ValidateFlags } from '../../app/cli/commands/validate.js';

/** `kreconcile validate -f app.yaml` as commander hands it over (its defaults). */
const flags: ValidateFlags = {
  filename: ['app.yaml'],
  output: 'text',
  namespace: 'default',
  crd: [],
  toscaFileRoot: [],
  toscaAllowHost: [],
};

describe('decodeValidateFlags', () => {
  it('decodes the defaults: offline, each plain manifest on its own, no template fetched', () => {
    expect(decodeValidateFlags(flags)).toEqual(
      E.right({
        tosca: { fetch: false, fileRoots: [], allowHttp: false, allowHosts: [] },
        plainManifests: { mode: 'resources' },
        target: undefined,
      }),
    );
  });

  it('decodes --as-application, --kubeconfig/--context and the TOSCA fetch flags', () => {
    expect(
      decodeValidateFlags({
        ...flags,
        asApplication: 'shop',
        kubeconfig: '/home/me/.kube/config',
        context: 'prod',
        allowToscaFetch: true,
        toscaAllowHost: ['10.0.0.0/8'],
      }),
    ).toEqual(
      E.right({
        tosca: { fetch: true, fileRoots: [], allowHttp: false, allowHosts: ['10.0.0.0/8'] },
        plainManifests: { mode: 'application', name: 'shop' },
        target: { kubeconfigPath: '/home/me/.kube/config', context: 'prod' },
      }),
    );
    expect(decodeValidateFlags({ ...flags, context: 'prod' })).toEqual(
      E.right(expect.objectContaining({ target: { context: 'prod' } })),
    );
  });

  it('refuses no -f, and a loosened fetch without --allow-tosca-fetch, with one line each', () => {
    expect(decodeValidateFlags({ ...flags, filename: [] })).toEqual(
      E.left('name the Applications or manifests to validate with -f app.yaml (see kreconcile validate --help)'),
    );
    expect(decodeValidateFlags({ ...flags, toscaAllowHttp: true })).toEqual(
      E.left('--tosca-allow-http loosens how templates are fetched: add --allow-tosca-fetch to fetch them'),
    );
  });
});
