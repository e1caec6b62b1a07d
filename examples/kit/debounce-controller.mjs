// A Greeting controller written the way many small ones are, with a planted bug the kit finds:
// it reads the default kubeconfig (KUBECONFIG) and opens its watch when the module loads, and it
// debounces events with ONE global flag. An event that arrives while the flag is up is dropped,
// whichever object it is about, so when two Greetings change together only the first gets its
// ConfigMap `<name>-greeting`. Run unchanged by test/app/testing/examples-kit.test.ts.
import { ApiException, KubeConfig, KubernetesObjectApi, Watch } from '@kubernetes/client-node';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromDefault();
const objects = KubernetesObjectApi.makeApiClient(kubeConfig);

let debouncing = false; // the bug: one flag for every object

const reconcile = async (greeting) => {
  const name = `${greeting.metadata.name}-greeting`;
  const existing = await objects
    .read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } })
    .catch((error) => (error instanceof ApiException && error.code === 404 ? undefined : Promise.reject(error)));
  const data = { message: greeting.spec.message };
  if (existing === undefined)
    await objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
  else if (existing.data?.message !== data.message) await objects.replace({ ...existing, data });
};

const onEvent = (type, greeting) => {
  if (type !== 'ADDED' && type !== 'MODIFIED') return;
  if (debouncing) return; // dropped: another object's event is being debounced
  debouncing = true;
  setTimeout(() => {
    debouncing = false;
    reconcile(greeting).catch((error) => console.error(`reconcile ${greeting.metadata.name}: ${error}`));
  }, 200);
};

const watch = () =>
  new Watch(kubeConfig)
    .watch('/apis/demo.example/v1/namespaces/default/greetings', {}, onEvent, (error) => {
      console.log(`watch ended${error ? `: ${error.message}` : ''}; watching again`);
      setTimeout(watch, 100);
    })
    .catch((error) => {
      console.error(`watch failed: ${error}`);
      setTimeout(watch, 100);
    });

console.log('debounce controller started');
watch();
