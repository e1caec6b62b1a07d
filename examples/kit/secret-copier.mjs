// A Secret-copying controller written the way small real ones are, with a planted bug the kit
// finds. Secrets in the namespace `kit-source` annotated `example.dev/copy-to: "team-a,team-b"`
// are copied into those namespaces, labelled `example.dev/copied-from: kit-source.<name>`. Its
// promise: a Secret it did not copy (a foreign one, without that label) is never overwritten.
// The bug: the ownership check treats ANY error of its read as "no Secret there", so a transient
// 500 skips the check, the create meets 409 AlreadyExists, and the fallback replace overwrites
// the foreign Secret. Copies into the target namespaces are made concurrently (Promise.all).
// Run unchanged (in process, or as a process) by test/app/testing/examples-kit.test.ts.
import { ApiException, CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';

const SOURCE = 'kit-source';
const COPY_TO = 'example.dev/copy-to';
const COPIED_FROM = 'example.dev/copied-from';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromDefault();
const core = kubeConfig.makeApiClient(CoreV1Api);

const isForeign = async (namespace, name, origin) => {
  try {
    const existing = await core.readNamespacedSecret({ name, namespace });
    return existing.metadata?.labels?.[COPIED_FROM] !== origin;
  } catch {
    return false; // the bug: meant for 404 only; a 500 lands here too and the check is skipped
  }
};

const copyInto = async (secret, namespace) => {
  const name = secret.metadata.name;
  const origin = `${SOURCE}.${name}`;
  if (await isForeign(namespace, name, origin)) {
    console.log(`${namespace}/${name} belongs to someone else: not copied`);
    return;
  }
  const body = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: { [COPIED_FROM]: origin } },
    type: secret.type,
    data: secret.data,
  };
  try {
    await core.createNamespacedSecret({ namespace, body });
  } catch (error) {
    if (!(error instanceof ApiException && error.code === 409)) throw error;
    const current = await core.readNamespacedSecret({ name, namespace });
    body.metadata.resourceVersion = current.metadata.resourceVersion;
    await core.replaceNamespacedSecret({ name, namespace, body });
  }
};

const reconcile = async (secret, attempt = 0) => {
  const targets = (secret.metadata.annotations?.[COPY_TO] ?? '').split(',').filter((t) => t !== '');
  try {
    await Promise.all(targets.map((namespace) => copyInto(secret, namespace)));
  } catch (error) {
    const delay = Math.min(100 * 2 ** attempt, 5_000);
    console.error(`copy of ${secret.metadata.name} failed (${error.code ?? error}); again in ${delay} ms`);
    setTimeout(() => void reconcile(secret, attempt + 1), delay);
  }
};

const listAndWatch = async () => {
  try {
    const list = await core.listNamespacedSecret({ namespace: SOURCE });
    list.items.forEach((secret) => void reconcile(secret));
    await new Watch(kubeConfig).watch(
      `/api/v1/namespaces/${SOURCE}/secrets`,
      { resourceVersion: list.metadata.resourceVersion },
      (type, secret) => {
        if (type === 'ADDED' || type === 'MODIFIED') void reconcile(secret);
      },
      () => setTimeout(() => void listAndWatch(), 200),
    );
  } catch (error) {
    console.error(`list of ${SOURCE} failed (${error.code ?? error}); again in 500 ms`);
    setTimeout(() => void listAndWatch(), 500);
  }
};

console.log('secret copier started');
void listAndWatch();
