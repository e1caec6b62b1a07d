// A small operator framework, shaped like the ones many TypeScript operators build on: a base
// class that reads the default kubeconfig in its constructor and gives subclasses a watch with
// added/modified/deleted hooks. Nothing here is wrong; the bug is in the controller that uses it.
import { KubeConfig, KubernetesObjectApi, Watch } from '@kubernetes/client-node';

export class Operator {
  constructor() {
    this.kubeConfig = new KubeConfig();
    this.kubeConfig.loadFromDefault(); // KUBECONFIG, else ~/.kube/config, else in-cluster
    this.objects = KubernetesObjectApi.makeApiClient(this.kubeConfig);
  }

  /** Watches `path`, calling `onEvent(type, object)`; re-watches 200 ms after the stream ends. */
  watchResource(path, onEvent) {
    const start = () =>
      new Watch(this.kubeConfig)
        .watch(
          path,
          {},
          (type, object) => onEvent(type, object),
          () => setTimeout(start, 200),
        )
        .catch(() => setTimeout(start, 200));
    start();
  }
}
