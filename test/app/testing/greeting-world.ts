/**
 * The world of the Greeting examples (docs/testing.md): a `Greeting` custom resource whose
 * controller keeps a ConfigMap `<name>-greeting` holding `spec.message`; another actor that
 * tampers with both; and the invariant once quiet.
 */
import fc from 'fast-check';
import type { ConvergenceContext } from '../../../app/testing/index.js';
import type { Resource } from '../../../core/internal.js';

export type World = ReadonlyArray<{ readonly name: string; readonly message: string }>;

export const worldArbitrary: fc.Arbitrary<World> = fc.uniqueArray(
  fc.record({ name: fc.constantFrom('alpha', 'beta', 'gamma'), message: fc.constantFrom('hello', 'hi', 'hey') }),
  { minLength: 1, maxLength: 3, selector: (g) => g.name },
);

export const greetingCrd: Resource = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'greetings.demo.example' },
  spec: {
    group: 'demo.example',
    scope: 'Namespaced',
    names: { plural: 'greetings', singular: 'greeting', kind: 'Greeting', listKind: 'GreetingList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

export const greetingRef = (name: string) => ({
  apiVersion: 'demo.example/v1',
  kind: 'Greeting',
  namespace: 'default',
  name,
});
export const configMapRef = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'default',
  name: `${name}-greeting`,
});

/** Another actor: edits a ConfigMap the controller owns, or a Greeting's message. */
export const perturb = async ({ api, world }: ConvergenceContext<World>, step: number): Promise<void> => {
  const target = world[step % world.length];
  if (target === undefined) return;
  if (step % 2 === 1)
    await api.patch(configMapRef(target.name), { type: 'merge', body: { data: { message: 'tampered' } } });
  else
    await api.patch(greetingRef(target.name), {
      type: 'merge',
      body: { spec: { message: `${target.message}, step ${step}` } },
    });
};

/** Every Greeting has its ConfigMap, with the Greeting's current message. */
export const converged = async ({ cluster }: ConvergenceContext<World>): Promise<true | string> => {
  const objects = cluster.objects();
  const wrong = objects
    .filter((o) => o.kind === 'Greeting')
    .flatMap((greeting) => {
      const message = (greeting.spec as { message: string }).message;
      const child = objects.find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name === `${greeting.metadata.name}-greeting`,
      );
      return (child?.data as { message?: string } | undefined)?.message === message
        ? []
        : [`${greeting.metadata.name}: wanted "${message}", found ${JSON.stringify(child?.data ?? null)}`];
    });
  return wrong.length === 0 ? true : wrong.join('; ');
};

/** The CRD, then the Greetings of the world (through the Promise facade). */
export const setup = async ({ api, cluster, world }: ConvergenceContext<World>): Promise<void> => {
  await api.create(greetingCrd);
  await cluster.settle();
  for (const greeting of world) {
    await api.create({
      apiVersion: 'demo.example/v1',
      kind: 'Greeting',
      metadata: { name: greeting.name, namespace: 'default' },
      spec: { message: greeting.message },
    });
  }
};
