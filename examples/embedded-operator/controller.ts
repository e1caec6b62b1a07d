/**
 * An operator for the `Greeting` kind (crd.yaml) built on kreconcile's runtime: each Greeting gets a
 * ConfigMap holding its message and a Deployment serving it. The author writes only `desired`;
 * kreconcile brings watches, queue, finalizer, status conditions, drift correction and pruning.
 * (An operator outside this repository imports `kreconcile/runtime` instead of the relative path.)
 */
import * as t from 'io-ts';
import {
  startEmbeddedOperator,
  type EmbeddedOperatorOptions,
  type Operator,
  type PrimaryReconciler,
} from '../../app/runtime/index.js';

export const GREETING = { apiVersion: 'example.kreconcile.io/v1', kind: 'Greeting' } as const;

interface WholeNumberBrand {
  readonly WholeNumber: unique symbol;
}
const WholeNumber = t.brand(
  t.number,
  (n): n is t.Branded<number, WholeNumberBrand> => Number.isInteger(n) && n >= 0,
  'WholeNumber',
);

/**
 * A Greeting's spec, decoded before `desired` sees it: one that does not decode stalls the Greeting naming the field.
 */
export const GreetingSpec = t.intersection([t.type({ message: t.string }), t.partial({ replicas: WholeNumber })]);
export type GreetingSpec = t.TypeOf<typeof GreetingSpec>;

/** The children of one Greeting; pure, typed, no casts. */
export const greetings: PrimaryReconciler<GreetingSpec> = {
  ...GREETING,
  spec: GreetingSpec,
  desired: (greeting) => {
    const { message, replicas = 1 } = greeting.spec;
    const name = `${greeting.metadata.name}-greeting`;
    const labels = { 'app.kubernetes.io/name': name };
    return {
      manifest: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { message } },
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
export const startGreetingOperator = (
  options: Omit<EmbeddedOperatorOptions<GreetingSpec>, 'reconciler'>,
): Promise<Operator> => startEmbeddedOperator({ ...options, reconciler: greetings });
