/** The model-based tests' world: Applications with realistic children, and what must hold once quiet. */
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import type { MemoryCluster } from '../../../adapters/memory/index.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  OWNER_ANNOTATION,
  getIn,
  type JsonValue,
  type Resource,
} from '../../../core/internal.js';

export type Child =
  | { readonly kind: 'ConfigMap'; readonly name: string; readonly data: Readonly<Record<string, string>> }
  | { readonly kind: 'Deployment'; readonly name: string; readonly replicas: number; readonly image: string }
  | { readonly kind: 'Service'; readonly name: string; readonly port: number };

export type AppSpec = { readonly namespace: string; readonly name: string; readonly children: ReadonlyArray<Child> };

export const NAMESPACES = ['default', 'team'];
export const APP_NAMES = ['shop', 'blog', 'wiki'];

const childArbitrary = (app: string): fc.Arbitrary<Child> =>
  fc.oneof(
    fc.record({
      kind: fc.constant('ConfigMap' as const),
      name: fc.constantFrom(`${app}-config`, `${app}-flags`),
      data: fc.dictionary(fc.constantFrom('mode', 'level', 'url'), fc.constantFrom('a', 'b', 'c'), { maxKeys: 3 }),
    }),
    fc.record({
      kind: fc.constant('Deployment' as const),
      name: fc.constant(`${app}-web`),
      replicas: fc.integer({ min: 1, max: 4 }),
      image: fc.constantFrom('nginx:1.27', 'nginx:1.28', 'busybox'),
    }),
    fc.record({
      kind: fc.constant('Service' as const),
      name: fc.constant(`${app}-web`),
      port: fc.constantFrom(80, 8080),
    }),
  );

/** Children of one Application: distinct (kind, name). */
export const childrenArbitrary = (app: string): fc.Arbitrary<ReadonlyArray<Child>> =>
  fc.uniqueArray(childArbitrary(app), { minLength: 1, maxLength: 3, selector: (c) => `${c.kind}/${c.name}` });

const labels = (app: string) => ({ app });

export const manifestOf = (spec: AppSpec): ReadonlyArray<Resource> =>
  spec.children.map((child): Resource => {
    switch (child.kind) {
      case 'ConfigMap':
        return {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: child.name, labels: labels(spec.name) },
          data: child.data,
        };
      case 'Deployment':
        return {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: child.name, labels: labels(spec.name) },
          spec: {
            replicas: child.replicas,
            selector: { matchLabels: labels(spec.name) },
            template: {
              metadata: { labels: labels(spec.name) },
              spec: { containers: [{ name: 'main', image: child.image, ports: [{ containerPort: 8080 }] }] },
            },
          },
        };
      case 'Service':
        return {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: child.name, labels: labels(spec.name) },
          spec: { selector: labels(spec.name), ports: [{ port: child.port }] },
        };
    }
  });

export const applicationOf = (spec: AppSpec): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name: spec.name, namespace: spec.namespace },
  spec: { manifest: manifestOf(spec) },
});

export const apiVersionOf = (kind: Child['kind']): string => (kind === 'Deployment' ? 'apps/v1' : 'v1');

/** The observed value another actor changes, and where (a field the manifest writes). */
export const observedFieldOf = (
  child: Child,
): { readonly path: ReadonlyArray<string | number>; readonly value: JsonValue } => {
  switch (child.kind) {
    case 'ConfigMap':
      return { path: ['metadata', 'labels', 'app'], value: 'tampered' };
    case 'Deployment':
      return { path: ['spec', 'replicas'], value: child.replicas + 10 };
    case 'Service':
      return { path: ['spec', 'ports', 0, 'port'], value: 9999 };
  }
};

/** Checks the world once quiet; returns the problems found (empty = converged). */
export const problems = (
  cluster: Pick<MemoryCluster, 'objects'>,
  apps: ReadonlyMap<string, AppSpec>,
  foreignAnnotations: ReadonlyMap<string, string>,
): ReadonlyArray<string> => {
  const objects = cluster.objects();
  const found: string[] = [];
  const key = (o: { kind: string; metadata: { namespace?: string; name: string } }): string =>
    `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  const byKey = new Map(objects.map((o) => [key(o), o]));
  const applications = objects.filter((o) => o.kind === APPLICATION_KIND);
  for (const application of applications) {
    const id = `${application.metadata.namespace}/${application.metadata.name}`;
    if (!apps.has(id)) found.push(`Application ${id} was deleted but still exists (finalizer not removed?)`);
    const ready = (
      getIn(application, ['status', 'conditions']) as
        ReadonlyArray<{ type: string; status: string; message: string }> | undefined
    )?.find((c) => c.type === 'Ready');
    if (apps.has(id) && ready?.status !== 'True')
      found.push(`Application ${id} is not Ready: ${JSON.stringify(ready)}`);
  }
  const desired = new Set<string>();
  for (const [id, spec] of apps) {
    if (!applications.some((a) => `${a.metadata.namespace}/${a.metadata.name}` === id))
      found.push(`Application ${id} is missing`);
    for (const [index, child] of spec.children.entries()) {
      const k = `${child.kind}/${spec.namespace}/${child.name}`;
      desired.add(k);
      const live = byKey.get(k);
      if (live === undefined) {
        found.push(`${k} of ${id} is missing`);
        continue;
      }
      const wanted = manifestOf(spec)[index] as Resource;
      const { path } = observedFieldOf(child);
      if (JSON.stringify(getIn(live, path)) !== JSON.stringify(getIn(wanted, path)))
        found.push(
          `${k}: ${path.join('.')} is ${JSON.stringify(getIn(live, path))}, want ${JSON.stringify(getIn(wanted, path))}`,
        );
    }
  }
  for (const object of objects) {
    const owner = object.metadata.annotations?.[OWNER_ANNOTATION];
    if (owner !== undefined && !desired.has(key(object))) found.push(`orphan ${key(object)} (owner ${owner})`);
  }
  for (const [k, value] of foreignAnnotations) {
    const live = byKey.get(k);
    if (live !== undefined && live.metadata.annotations?.['other.example/touched'] !== value) {
      found.push(`${k}: another actor's non-observed annotation was reverted`);
    }
  }
  return found;
};

export const ignore = async (task: Promise<unknown>): Promise<void> => {
  try {
    await task;
  } catch {
    /* faults */
  }
};

export const isRight = E.isRight;
