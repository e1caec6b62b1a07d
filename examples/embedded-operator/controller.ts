/**
 * An operator for the `Greeting` kind (crd.yaml) built on kreconcile's runtime: each Greeting gets a
 * ConfigMap holding its message and a Deployment serving it. The author writes only `desired`;
 * kreconcile brings watches, queue, finalizer, status conditions, drift correction and pruning.
 * (An operator outside this repository imports `kreconcile/runtime` instead of the relative path.)
 */
import {
  startEmbeddedOperator,
  type EmbeddedOperatorOptions,
  type Operator,
  type PrimaryReconciler,
} from '../../app/runtime/index.js';

export const GREETING = { apiVersion: 'example.kreconcile.io/v1', kind: 'Greeting' } as const;

type GreetingSpec = { readonly message?: unknown; readonly replicas?: unknown };

/** The children of one Greeting; pure. A bad spec throws: kreconcile reports it as Stalled InvalidSpec. */
export const greetings: PrimaryReconciler = {
  ...GREETING,
  desired: (greeting) => {
    const spec = (greeting.spec ?? {}) as GreetingSpec;
    if (typeof spec.message !== 'string') throw new Error('spec.message must be a string');
    const replicas = spec.replicas ?? 1;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
      throw new Error('spec.replicas must be a whole number ≥ 0');
    const name = `${greeting.metadata.name}-greeting`;
    const labels = { 'app.kubernetes.io/name': name };
    return {
      manifest: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { message: spec.message } },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name },
          spec: {
            replicas,
            selector: { matchLabels: labels },
            template: {
              metadata: { labels },
              spec: {
                containers: [{ name: 'greeter', image: 'registry.k8s.io/pause:3.10' }],
                volumes: [{ name: 'message', configMap: { name } }],
              },
            },
          },
        },
      ],
    };
  },
};

/** Runs the Greeting operator (leader election, metrics and the rest as `startOperator` documents). */
export const startGreetingOperator = (options: Omit<EmbeddedOperatorOptions, 'reconciler'>): Promise<Operator> =>
  startEmbeddedOperator({ ...options, reconciler: greetings });
