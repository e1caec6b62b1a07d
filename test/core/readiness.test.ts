import { describe, expect, it } from 'vitest';
import { builtinScopes, plan, readinessOf, type Application, type Resource } from '../../core/internal.js';

const object = (apiVersion: string, kind: string, body: object, metadata: object = {}): Resource => ({
  apiVersion,
  kind,
  metadata: { name: 'x', namespace: 'default', generation: 2, ...metadata },
  ...body,
});

describe('readinessOf (kstatus)', () => {
  it('a Deployment is ready once its controller observed the generation and every replica is updated and available', () => {
    expect(readinessOf(object('apps/v1', 'Deployment', { spec: { replicas: 3 } }))).toEqual({
      ready: false,
      reason: 'Deployment controller has not observed generation 2',
    });
    expect(
      readinessOf(
        object('apps/v1', 'Deployment', {
          spec: { replicas: 3 },
          status: { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 1 },
        }),
      ),
    ).toEqual({ ready: false, reason: '1/3 replicas available' });
    expect(
      readinessOf(
        object('apps/v1', 'Deployment', {
          spec: { replicas: 3 },
          status: { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3 },
        }),
      ),
    ).toEqual({ ready: true });
  });

  it('a StatefulSet counts ready replicas; a DaemonSet its scheduled pods', () => {
    expect(
      readinessOf(
        object('apps/v1', 'StatefulSet', {
          spec: { replicas: 2 },
          status: { observedGeneration: 2, updatedReplicas: 2, readyReplicas: 1 },
        }),
      ).ready,
    ).toBe(false);
    expect(
      readinessOf(
        object('apps/v1', 'DaemonSet', {
          status: { observedGeneration: 2, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2 },
        }),
      ),
    ).toEqual({ ready: true });
  });

  it('a Job must be complete (a failed one never is), a PVC bound, a LoadBalancer Service addressed', () => {
    expect(
      readinessOf(object('batch/v1', 'Job', { status: { conditions: [{ type: 'Complete', status: 'True' }] } })),
    ).toEqual({ ready: true });
    expect(
      readinessOf(object('batch/v1', 'Job', { status: { conditions: [{ type: 'Failed', status: 'True' }] } })),
    ).toEqual({ ready: false, reason: 'Job failed' });
    expect(readinessOf(object('v1', 'PersistentVolumeClaim', { status: { phase: 'Pending' } }))).toEqual({
      ready: false,
      reason: 'PersistentVolumeClaim is Pending',
    });
    expect(
      readinessOf(object('v1', 'Service', { spec: { type: 'LoadBalancer' }, status: { loadBalancer: {} } })).ready,
    ).toBe(false);
    expect(
      readinessOf(
        object('v1', 'Service', {
          spec: { type: 'LoadBalancer' },
          status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
        }),
      ).ready,
    ).toBe(true);
    expect(readinessOf(object('v1', 'Service', { spec: { type: 'ClusterIP' } })).ready).toBe(true);
  });

  it('a custom resource needs a Ready condition that is True for its current generation (none: exists = ready)', () => {
    expect(readinessOf(object('music.example/v1', 'Song', {}))).toEqual({ ready: true });
    expect(
      readinessOf(
        object('music.example/v1', 'Song', {
          status: { conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1 }] },
        }),
      ),
    ).toEqual({ ready: false, reason: 'Ready condition is for generation 1, not 2' });
    expect(
      readinessOf(
        object('music.example/v1', 'Song', {
          status: { conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2 }] },
        }),
      ),
    ).toEqual({ ready: true });
  });

  it('an object being deleted is not ready; a ConfigMap is ready once it exists', () => {
    expect(readinessOf(object('v1', 'ConfigMap', {}, { deletionTimestamp: '2026-01-01T00:00:00Z' })).ready).toBe(false);
    expect(readinessOf(object('v1', 'ConfigMap', { data: {} }))).toEqual({ ready: true });
  });
});

describe('plan waits for readiness', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 2 },
  } as unknown as Resource;
  const application: Application = {
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'shop', namespace: 'default', uid: 'u', generation: 1, finalizers: ['kreconcile.io/cleanup'] },
    spec: { manifest: [deployment] },
  };
  const live = (status: object): Resource =>
    ({
      ...deployment,
      metadata: {
        name: 'web',
        namespace: 'default',
        generation: 1,
        labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
        annotations: { 'kreconcile.io/owner': 'default/shop' },
      },
      status,
    }) as unknown as Resource;

  it('nothing to do but a child not rolled out: Reconciling (WaitingForReadiness) naming it, and a requeue', () => {
    const planned = plan({
      application,
      live: [live({ observedGeneration: 1, updatedReplicas: 2, availableReplicas: 1 })],
      scopes: builtinScopes,
      now: 't',
    });
    expect(planned.actions).toEqual([]);
    expect(planned.status.conditions?.find((c) => c.type === 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'WaitingForReadiness',
      message: 'waiting for Deployment default/web (1/2 replicas available)',
    });
    expect(planned.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    expect(planned.outcome).toEqual({ _tag: 'RequeueAfter', ms: 5_000, reason: 'WaitingForReadiness' });
  });

  it('rolled out: Ready; with readiness "existence" it is Ready regardless', () => {
    expect(
      plan({
        application,
        live: [live({ observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2 })],
        scopes: builtinScopes,
        now: 't',
      }).status.conditions?.find((c) => c.type === 'Ready')?.status,
    ).toBe('True');
    expect(
      plan({
        application,
        live: [live({})],
        scopes: builtinScopes,
        now: 't',
        options: { readiness: 'existence' },
      }).status.conditions?.find((c) => c.type === 'Ready')?.status,
    ).toBe('True');
  });
});
