/** Custom resource definitions the real-server suites install before anything else runs. */
import { applicationCrd } from '../../app/manifests/crd.js';
import type { Resource } from '../../core/model/resource.js';
import { widgetCrd as contractWidgetCrd } from '../contract/contract-support.js';

export const widgetGroup = 'test.kreconcile.io';

/**
 * `Widget`: namespaced, status subresource, a defaulted field and a validated one, so the
 * suites can see defaulting, generation bumps and 422s the way a real CRD produces them.
 */
export const widgetCrd: Resource = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${widgetGroup}` },
  spec: {
    group: widgetGroup,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
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
                properties: {
                  size: { type: 'integer', minimum: 0, default: 1 },
                  color: { type: 'string' },
                  tags: { type: 'array', items: { type: 'string' } },
                  settings: { type: 'object', additionalProperties: { type: 'string' } },
                },
              },
              status: {
                type: 'object',
                properties: {
                  phase: { type: 'string' },
                  observedGeneration: { type: 'integer' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** `Gizmo`: cluster-scoped, no status subresource (status is then an ordinary field). */
export const gizmoCrd: Resource = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gizmos.${widgetGroup}` },
  spec: {
    group: widgetGroup,
    scope: 'Cluster',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

export const testCrds: ReadonlyArray<Resource> = [widgetCrd, gizmoCrd];

/**
 * Everything the real-server suites need, the contract suite's CRD and kreconcile's own
 * Application CRD included: installed before kube-controller-manager starts, the kinds are known
 * to its garbage collector at once (it rediscovers new kinds only every 30 s), so children owned
 * by an Application through an ownerReference are collected like the real operator's.
 */
export const suiteCrds: ReadonlyArray<Resource> = [...testCrds, contractWidgetCrd, applicationCrd()];
