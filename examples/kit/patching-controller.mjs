// A Greeting controller that writes only with patches, as most client-node controllers do:
// - its ConfigMap `<name>-greeting` by server-side apply (PatchStrategy.ServerSideApply, field
//   manager `greeting-controller`, force: it takes the fields back from whoever changed them);
// - its Deployment `<name>-greeter` with KubernetesObjectApi.patch's default strategy, strategic
//   merge patch: the patch names one env var of one container, and the server merges both lists
//   by their keys (container name, env var name), so the image and the env var STATIC the
//   Deployment was created with stay. (Sent as a merge patch, the same body would replace the
//   container list with a container that has no image.)
// It reads the default kubeconfig (KUBECONFIG) and opens its watches when the module loads.
// Run unchanged under the kit by test/app/testing/examples-kit.test.ts.
import { ApiException, KubeConfig, KubernetesObjectApi, PatchStrategy, Watch } from '@kubernetes/client-node';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromDefault();
const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
const NAMESPACE = 'default';
const MANAGER = 'greeting-controller';

const notFound = (error) => error instanceof ApiException && error.code === 404;

const ownerOf = (greeting) => ({
  apiVersion: 'demo.example/v1',
  kind: 'Greeting',
  name: greeting.metadata.name,
  uid: greeting.metadata.uid,
  controller: true,
});

const applyConfigMap = (greeting) =>
  objects.patch(
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${greeting.metadata.name}-greeting`,
        namespace: NAMESPACE,
        ownerReferences: [ownerOf(greeting)],
      },
      data: { message: greeting.spec.message },
    },
    undefined,
    undefined,
    MANAGER,
    true,
    PatchStrategy.ServerSideApply,
  );

const messageEnv = (greeting) => ({ name: 'MESSAGE', value: greeting.spec.message });

const createDeployment = (greeting, name) => {
  const labels = { app: name };
  return objects.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE, ownerReferences: [ownerOf(greeting)] },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            { name: 'greeter', image: 'busybox:1.36', env: [messageEnv(greeting), { name: 'STATIC', value: 'kept' }] },
          ],
        },
      },
    },
  });
};

const reconcileDeployment = async (greeting) => {
  const name = `${greeting.metadata.name}-greeter`;
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NAMESPACE } };
  const existing = await objects.read(ref).catch((error) => (notFound(error) ? undefined : Promise.reject(error)));
  if (existing === undefined) return createDeployment(greeting, name);
  const env = existing.spec.template.spec.containers.find((c) => c.name === 'greeter')?.env ?? [];
  if (env.find((e) => e.name === 'MESSAGE')?.value === greeting.spec.message) return undefined;
  // The default patch strategy: strategic merge patch.
  return objects.patch({
    ...ref,
    spec: { template: { spec: { containers: [{ name: 'greeter', env: [messageEnv(greeting)] }] } } },
  });
};

const reconcile = async (greeting) => {
  try {
    await applyConfigMap(greeting);
    await reconcileDeployment(greeting);
  } catch (error) {
    console.error(
      `reconcile ${greeting.metadata.name}: ${error instanceof ApiException ? error.code : error}; retrying`,
    );
    setTimeout(() => void reconcileByName(greeting.metadata.name), 100);
  }
};

const reconcileByName = async (name) => {
  try {
    const ref = { apiVersion: 'demo.example/v1', kind: 'Greeting', metadata: { name, namespace: NAMESPACE } };
    await reconcile(await objects.read(ref));
  } catch (error) {
    if (!notFound(error)) setTimeout(() => void reconcileByName(name), 100);
  }
};

const listAndWatch = async () => {
  try {
    const list = await objects.list('demo.example/v1', 'Greeting', NAMESPACE);
    list.items.forEach((greeting) => void reconcile(greeting));
    await new Watch(kubeConfig).watch(
      `/apis/demo.example/v1/namespaces/${NAMESPACE}/greetings`,
      { resourceVersion: list.metadata.resourceVersion },
      (type, greeting) => {
        if (type === 'ADDED' || type === 'MODIFIED') void reconcile(greeting);
      },
      () => setTimeout(() => void listAndWatch(), 50),
    );
  } catch (error) {
    console.error(`list failed: ${error instanceof ApiException ? error.code : error}; retrying`);
    setTimeout(() => void listAndWatch(), 100);
  }
};

// What this controller owns: a change by anyone else is undone.
const watchOwned = (path) =>
  new Watch(kubeConfig)
    .watch(
      path,
      {},
      (type, object) => {
        const owner = object.metadata?.ownerReferences?.find((ref) => ref.kind === 'Greeting');
        if (owner !== undefined && type === 'MODIFIED') void reconcileByName(owner.name);
      },
      () => setTimeout(() => watchOwned(path), 50),
    )
    .catch(() => setTimeout(() => watchOwned(path), 100));

console.log('patching controller started');
void listAndWatch();
watchOwned(`/api/v1/namespaces/${NAMESPACE}/configmaps`);
watchOwned(`/apis/apps/v1/namespaces/${NAMESPACE}/deployments`);
