#!/usr/bin/env node
/**
 * The Greeting operator, runnable: the reconciler of controller.ts in JavaScript, so that the npm
 * package (which ships no TypeScript sources) holds a program to run. From a project that installed
 * kreconcile:
 *
 *   kubectl apply -f node_modules/kreconcile/examples/embedded-operator/crd.yaml
 *   node node_modules/kreconcile/examples/embedded-operator/operator.mjs [--kubeconfig PATH] [--context NAME] [--port
 * 8080]
 *
 * Without --kubeconfig, the kubeconfig lookup kubectl uses (KUBECONFIG, ~/.kube/config, in a pod its
 * ServiceAccount). SIGTERM or SIGINT stops it, letting running reconciles finish (up to 30 s).
 */
import { parseArgs } from 'node:util';
import * as t from 'io-ts';
import { createKubernetesCluster } from 'kreconcile/kubernetes';
import { startEmbeddedOperator, systemClock } from 'kreconcile/runtime';

const WholeNumber = t.refinement(t.number, (n) => Number.isInteger(n) && n >= 0, 'WholeNumber');

/**
 * A Greeting's spec, decoded before `desired` sees it: one that does not decode stalls the Greeting naming the field.
 */
const GreetingSpec = t.intersection([t.type({ message: t.string }), t.partial({ replicas: WholeNumber })]);

/** Each Greeting: a ConfigMap holding its message, and a Deployment mounting it. */
export const greetings = {
  apiVersion: 'example.kreconcile.io/v1',
  kind: 'Greeting',
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

const { values } = parseArgs({
  options: { kubeconfig: { type: 'string' }, context: { type: 'string' }, port: { type: 'string' } },
});
const cluster = createKubernetesCluster({
  ...(values.kubeconfig === undefined ? {} : { kubeconfigPath: values.kubeconfig }),
  ...(values.context === undefined ? {} : { context: values.context }),
});
const operator = await startEmbeddedOperator({
  cluster,
  clock: systemClock,
  random: Math.random,
  reconciler: greetings,
  ...(values.port === undefined ? {} : { listen: { host: '0.0.0.0', port: Number(values.port) } }),
});
process.stdout.write('greeting operator started\n');
const stop = async () => {
  await operator.stop(30_000);
  process.stdout.write('stopped\n');
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
