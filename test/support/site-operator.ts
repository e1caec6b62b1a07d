/**
 * A `Site` operator for the tests of `planDesiredChange` (app/runtime/desired-change.ts): its CRD,
 * and its `desired()` parameterised by the image of Sites that pin none (the change under review is
 * a bump of that default). Without the ConfigMap it is the `desired()` of docs/runtime.md's example.
 */
import * as t from 'io-ts';
import type { PrimaryReconciler } from '../../app/runtime/index.js';
import { getOwn, isJsonArray, isJsonObject, type Resource } from '../../core/internal.js';

export const SITE = { apiVersion: 'example.kreconcile.io/v1', kind: 'Site' } as const;

export const SiteSpec = t.intersection([t.type({ replicas: t.number }), t.partial({ image: t.string })]);

/** The Site operator's `desired()` with `defaultImage` as the image of Sites that pin none. */
export const siteReconciler = (
  defaultImage: string,
  withConfig = true,
): PrimaryReconciler<t.TypeOf<typeof SiteSpec>> => ({
  ...SITE,
  spec: SiteSpec,
  desired: (site) => {
    const name = site.metadata.name;
    const labels = { 'app.kubernetes.io/name': name };
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { site: name } };
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas: site.spec.replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'web', image: site.spec.image ?? defaultImage }] },
        },
      },
    };
    return { manifest: withConfig ? [config, deployment] : [deployment] };
  },
});

export const SITE_CRD: Resource = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sites.example.kreconcile.io' },
  spec: {
    group: 'example.kreconcile.io',
    scope: 'Namespaced',
    names: { plural: 'sites', singular: 'site', kind: 'Site', listKind: 'SiteList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { replicas: { type: 'integer' }, image: { type: 'string' } },
              },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

/** Whether a primary's status says Ready (kreconcile's condition, read from the stored JSON). */
export const isReady = (site: Resource): boolean => {
  const conditions = isJsonObject(site.status) ? getOwn(site.status, 'conditions') : undefined;
  return (
    isJsonArray(conditions) &&
    conditions.some((c) => isJsonObject(c) && getOwn(c, 'type') === 'Ready' && getOwn(c, 'status') === 'True')
  );
};
