/**
 * Observer schemas on a real API server (issue 13): an Application's observed fields survive
 * every way users update it — create, a `kubectl apply`-style JSON merge patch, server-side apply
 * and a `kubectl edit`-style GET/modify/PUT — when marked `true`; Krake's `null` markers, which a
 * merge patch deletes, are reported (Stalled InvalidObserverSchema), never read as "observe
 * nothing". And the CRD's structural spec schema: unknown spec fields refused under
 * fieldValidation=Strict (kubectl's default), dropped otherwise; wrong types and enums refused.
 * And `kreconcile validate --kubeconfig` finds in manifests what this server refuses.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { createRestClient } from '../../adapters/kubernetes/rest-client.js';
import { fetchOpenApiDocuments } from '../../app/cli/live/openapi.js';
import { run } from '../../app/cli/main.js';
import type { ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  getIn,
  plan,
  showClusterError,
  type Application,
  type JsonObject,
  type JsonValue,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import { testIo } from '../cli/support/run-cli.js';
import {
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readExisting,
  readObject,
  reconcileUntilQuiet,
  WIDGET_API,
} from '../support/e2e-application.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';

const CONTROL = { observer_schema_list_min_length: 1, observer_schema_list_max_length: 1 };

const manifest = (color: string): ReadonlyArray<Resource> =>
  [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-config' },
      data: { LOG_LEVEL: 'info', COLOR: color },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    },
  ] as ReadonlyArray<Resource>;

/**
 * The two custom schemas, every observed field marked with `marker`; `configData` picks the ConfigMap keys observed.
 */
const schemas = (
  marker: true | null,
  configData: ReadonlyArray<string>,
  extra: { readonly labels?: boolean } = {},
): ReadonlyArray<JsonObject> => [
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web-config', ...(extra.labels ? { labels: marker } : {}) },
    data: Object.fromEntries(configData.map((key) => [key, marker])),
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: marker, template: { spec: { containers: [{ image: marker }, CONTROL] } } },
  },
];

const applicationOf = (namespace: string, name: string, spec: JsonObject): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name, namespace },
  spec,
});

/** What `plan` observes of the stored Application: its custom schemas in the internal form, or the Stalled verdict. */
const observedByPlan = (
  application: Application,
): {
  readonly stalled?: { readonly reason: string; readonly message: string };
  readonly observed?: ReadonlyArray<JsonValue>;
} => {
  const planned = plan({ application, live: [], scopes: builtinScopes, now: new Date().toISOString() });
  const stalled = planned.status.conditions?.find(
    (condition) => condition.type === 'Stalled' && condition.status === 'True',
  );
  if (stalled !== undefined) return { stalled: { reason: stalled.reason, message: stalled.message } };
  return {
    observed: (planned.status.mangledObserverSchema ?? []).slice(0, application.spec.observerSchema?.length ?? 0),
  };
};

describeWithApiServer('observer schemas survive every update path on the real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-markers'));
  });
  afterAll(async () => {
    await cleanup();
  });

  const stored = async (ref: ObjectRef): Promise<Application> => readApplication(cluster, ref);

  it('true markers: create, merge patch (kubectl apply), server-side apply and GET/PUT (kubectl edit) all keep every observed field', async () => {
    const ref = applicationRef(namespace, 'marked');
    const expectObserves = async (
      written: ReadonlyArray<JsonObject>,
      internal: ReadonlyArray<JsonObject>,
    ): Promise<void> => {
      const application = await stored(ref);
      expect(application.spec.observerSchema).toEqual(written);
      expect(observedByPlan(application)).toEqual({ observed: internal });
    };

    // 1. create
    await must(
      cluster.create(
        applicationOf(namespace, 'marked', {
          manifest: manifest('blue'),
          observerSchema: schemas(true, ['LOG_LEVEL']),
        }),
      ),
    );
    await expectObserves(schemas(true, ['LOG_LEVEL']), schemas(null, ['LOG_LEVEL']));

    // 2. client-side `kubectl apply` of a custom resource: a JSON merge patch carrying the changed lists whole.
    await must(
      cluster.patch(ref, {
        type: 'merge',
        body: {
          spec: {
            manifest: manifest('green') as JsonValue,
            observerSchema: schemas(true, ['LOG_LEVEL', 'COLOR']) as JsonValue,
          },
        },
      }),
    );
    await expectObserves(schemas(true, ['LOG_LEVEL', 'COLOR']), schemas(null, ['LOG_LEVEL', 'COLOR']));

    // 3. server-side apply by another manager (as `kubectl apply --server-side --force-conflicts` would).
    const applied = applicationOf(namespace, 'marked', {
      manifest: manifest('red'),
      observerSchema: schemas(true, ['COLOR']),
    });
    await must(cluster.patch(ref, { type: 'apply', body: applied, fieldManager: 'kubectl', force: true }));
    await expectObserves(schemas(true, ['COLOR']), schemas(null, ['COLOR']));

    // 4. `kubectl edit`: GET, modify, PUT the whole object back (resourceVersion as precondition).
    const current = await stored(ref);
    const edited = {
      ...current,
      spec: { ...current.spec, observerSchema: schemas(true, ['COLOR', 'LOG_LEVEL'], { labels: true }) },
    };
    await must(cluster.update(edited as unknown as Resource));
    await expectObserves(
      schemas(true, ['COLOR', 'LOG_LEVEL'], { labels: true }),
      schemas(null, ['COLOR', 'LOG_LEVEL'], { labels: true }),
    );
  });

  it("the operator keeps true-marked fields as written, through a kubectl-apply-style update and someone else's drift", async () => {
    // Its own namespace: the children it creates must not meet the other tests' Applications.
    const own = await freshNamespace(cluster, 'kr-operated');
    try {
      await operate(own.namespace);
    } finally {
      await own.cleanup();
    }
  });

  const operate = async (home: string): Promise<void> => {
    const ref = applicationRef(home, 'operated');
    const deps: ReconcileDeps = {
      cluster,
      scopes: builtinScopes,
      now: () => new Date().toISOString(),
      random: Math.random,
      planOptions: { readiness: 'existence' },
    };
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', namespace: home, name: 'web-config' };
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: home, name: 'web' };
    await must(
      cluster.create(
        applicationOf(home, 'operated', {
          manifest: manifest('blue'),
          observerSchema: schemas(true, ['LOG_LEVEL']),
        }),
      ),
    );
    await reconcileUntilQuiet(ref, deps);
    expectReady(await stored(ref));

    // kubectl apply: COLOR becomes observed and green; the merge patch keeps the true markers.
    await must(
      cluster.patch(ref, {
        type: 'merge',
        body: {
          spec: {
            manifest: manifest('green') as JsonValue,
            observerSchema: schemas(true, ['LOG_LEVEL', 'COLOR']) as JsonValue,
          },
        },
      }),
    );
    await reconcileUntilQuiet(ref, deps);
    expect((await readExisting(cluster, configMap)).data).toEqual({ LOG_LEVEL: 'info', COLOR: 'green' });

    // Someone else changes both observed values and the replicas: all are put back.
    await must(cluster.patch(configMap, { type: 'merge', body: { data: { LOG_LEVEL: 'debug', COLOR: 'purple' } } }));
    await must(cluster.patch(deployment, { type: 'merge', body: { spec: { replicas: 5 } } }));
    await reconcileUntilQuiet(ref, deps);
    expect((await readExisting(cluster, configMap)).data).toEqual({ LOG_LEVEL: 'info', COLOR: 'green' });
    expect(getIn(await readExisting(cluster, deployment), ['spec', 'replicas'])).toBe(2);
    expectReady(await stored(ref));
  };

  it('null markers: kept by create, deleted by a merge patch — and then reported, by plan and by the operator, never "observe nothing"', async () => {
    const ref = applicationRef(namespace, 'krake');
    await must(
      cluster.create(
        applicationOf(namespace, 'krake', {
          manifest: manifest('blue'),
          observerSchema: schemas(null, ['LOG_LEVEL']),
        }),
      ),
    );
    expect(observedByPlan(await stored(ref))).toEqual({ observed: schemas(null, ['LOG_LEVEL']) });

    // `kubectl apply` adding COLOR to the observed fields: the merge patch deletes every null it carries.
    await must(
      cluster.patch(ref, {
        type: 'merge',
        body: { spec: { observerSchema: schemas(null, ['LOG_LEVEL', 'COLOR']) as JsonValue } },
      }),
    );
    const stripped = await stored(ref);
    expect(stripped.spec.observerSchema).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: {} },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: { template: { spec: { containers: [{}, CONTROL] } } },
      },
    ]);
    const verdict = observedByPlan(stripped);
    expect(verdict.stalled?.reason).toBe('InvalidObserverSchema');
    expect(verdict.stalled?.message).toContain(
      'spec.observerSchema[0].data: empty object: it observes nothing; mark each observed field with true',
    );
    expect(verdict.stalled?.message).toContain(
      'spec.observerSchema[1].spec.template.spec.containers: every element schema is empty',
    );

    // The operator's reconcile writes the verdict to the Application's status and creates nothing.
    const deps: ReconcileDeps = {
      cluster,
      scopes: builtinScopes,
      now: () => new Date().toISOString(),
      random: Math.random,
      planOptions: { readiness: 'existence' },
    };
    await reconcileUntilQuiet(ref, deps);
    const reported = await stored(ref);
    expect(conditionOf(reported, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'InvalidObserverSchema',
      observedGeneration: reported.metadata.generation,
    });
    expect(conditionOf(reported, 'Ready')).toMatchObject({ status: 'False' });
    expect(
      await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'web-config' }),
    ).toBeUndefined();
  });
});

describeWithApiServer('the Application CRD refuses what kreconcile would not read', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-strict'));
  });
  afterAll(async () => {
    await cleanup();
  });

  /** POST an Application with the given query (the adapter's create sends no fieldValidation). */
  const post = async (name: string, spec: JsonObject, query: Readonly<Record<string, string>>) =>
    createRestClient(cluster.kubeConfig, 30_000).send({
      method: 'POST',
      path: `/apis/${APPLICATION_API_VERSION}/namespaces/${namespace}/applications`,
      query,
      body: applicationOf(namespace, name, spec),
    })();

  const typo = { manifest: manifest('blue') as JsonValue, observerSchemas: schemas(true, ['LOG_LEVEL']) as JsonValue };

  it("fieldValidation=Strict (kubectl's default): spec.observerSchemas is refused as an unknown field", async () => {
    const result = await post('strict', typo, { fieldValidation: 'Strict' });
    expect(E.isLeft(result) && showClusterError(result.left)).toMatch(
      /strict decoding error: unknown field "spec\.observerSchemas"/,
    );
    expect(await readObject(cluster, applicationRef(namespace, 'strict'))).toBeUndefined();
  });

  it('without fieldValidation (the server default, Warn) and with Ignore: created with the unknown field dropped', async () => {
    for (const [name, query] of [
      ['warned', {}],
      ['ignored', { fieldValidation: 'Ignore' }],
    ] as const) {
      const result = await post(name, typo, query);
      expect(E.isRight(result), E.isLeft(result) ? showClusterError(result.left) : name).toBe(true);
      const application = await readApplication(cluster, applicationRef(namespace, name));
      expect(Object.keys(application.spec)).toEqual(['manifest']);
    }
  });

  it.each([
    ['a boolean that is a string', { adopt: 'yes' }, 'spec.adopt'],
    ['a hook that does not exist', { hooks: ['complete', 'restart'] }, 'spec.hooks[1]'],
    ['a manifest that is not a list', { manifest: { apiVersion: 'v1' } }, 'spec.manifest'],
  ])('%s is refused whatever the field validation (Invalid, naming the field)', async (_label, spec, field) => {
    const result = await post('typed', { manifest: manifest('blue'), ...spec }, {});
    expect(E.isLeft(result) && result.left._tag).toBe('Invalid');
    expect(E.isLeft(result) && showClusterError(result.left)).toContain(field);
  });
});

describeWithApiServer(
  "kreconcile validate --kubeconfig: manifests against the real server's OpenAPI schemas",
  (env) => {
    let cluster: KubernetesCluster;
    let namespace: string;
    let cleanup: () => Promise<void>;
    let dir: string;

    beforeAll(async () => {
      cluster = connect(env);
      ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-openapi'));
      dir = await mkdtemp(join(tmpdir(), 'kr-openapi-'));
    });
    afterAll(async () => {
      await cleanup();
      await rm(dir, { recursive: true, force: true });
    });

    const validate = async (
      file: string,
    ): Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }> => {
      const { io, out, err } = testIo();
      const code = await run(['validate', '-f', file, '--kubeconfig', env.kubeconfigPath], {
        ...io,
        fetchOpenApi: fetchOpenApiDocuments,
      });
      return { code, stdout: out.join(''), stderr: err.join('') };
    };

    /** What this server answers a Strict, dry-run create of the resource (nothing is stored). */
    const serverRefuses = async (resource: Resource, collection: string): Promise<boolean> => {
      const answer = await createRestClient(cluster.kubeConfig, 30_000).send({
        method: 'POST',
        path: `${collection}/namespaces/${namespace}/${resource.kind.toLowerCase()}s`,
        query: { dryRun: 'All', fieldValidation: 'Strict' },
        body: { ...resource, metadata: { ...resource.metadata, namespace } },
      })();
      return E.isLeft(answer);
    };

    const good = manifest('blue');
    const bad: ReadonlyArray<readonly [Resource, string]> = [
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' }, data: { A: 1 } }, '/api/v1'],
      [
        { ...good[1]!, metadata: { name: 'typo' }, spec: { ...(good[1]!.spec as JsonObject), replica: 3 } },
        '/apis/apps/v1',
      ],
      [
        {
          apiVersion: WIDGET_API,
          kind: 'Widget',
          metadata: { name: 'w' },
          spec: { colour: 'red', size: 'big' },
        },
        `/apis/${WIDGET_API}`,
      ],
    ];

    it('every resource it reports is one the server refuses (Strict, dry run), each problem on its line; valid resources pass', async () => {
      for (const [resource, collection] of bad)
        expect(await serverRefuses(resource, collection), resource.metadata.name).toBe(true);
      for (const [resource, collection] of [
        [good[0]!, '/api/v1'],
        [good[1]!, '/apis/apps/v1'],
      ] as const)
        expect(await serverRefuses(resource, collection), resource.metadata.name).toBe(false);

      const file = join(dir, 'app.json');
      await writeFile(
        file,
        JSON.stringify(
          applicationOf(namespace, 'checked', {
            manifest: [...good, ...bad.map(([resource]) => resource)],
          }),
        ),
      );
      const result = await validate(file);
      expect(result.code).toBe(1);
      const where = (index: number, path: string): string =>
        `document 1 (Application ${namespace}/checked): spec.manifest[${index}].${path}`;
      expect(
        result.stderr
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.replace(/^error: [^ ]+ /, '')),
      ).toEqual([
        `${where(2, 'data.A')}: expected string, got number 1 (the cluster's schema of v1 ConfigMap)`,
        `${where(3, 'spec.replica')}: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean \`replicas\`?`,
        `${where(4, 'spec.colour')}: unknown field of ${WIDGET_API} Widget (the API server would refuse or drop it): did you mean \`color\`?`,
        `${where(4, 'spec.size')}: expected integer, got string "big" (the cluster's schema of ${WIDGET_API} Widget)`,
      ]);
    });

    it('a valid Application is valid against the live schemas too', async () => {
      const file = join(dir, 'good.json');
      await writeFile(
        file,
        JSON.stringify(
          applicationOf(namespace, 'good', {
            manifest: good,
            observerSchema: schemas(true, ['LOG_LEVEL']),
          }),
        ),
      );
      expect(await validate(file)).toEqual({
        code: 0,
        stdout: `Application ${namespace}/good (${file}, document 1): valid\n`,
        stderr: '',
      });
    });
  },
);
