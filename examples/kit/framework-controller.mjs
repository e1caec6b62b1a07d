// A Greeting controller on the framework in ./framework/operator.mjs, written the way many are,
// with a planted bug the kit finds: its write is not awaited. The ConfigMap `<name>-greeting`
// is applied and forgotten, so a transient 500 is an unhandled promise rejection, which ends a
// Node process (exit code 1): a crash loop under a flaky API server, each restart losing the
// work in flight. The watch opens when the module loads. Run unchanged by test/app/testing/examples-kit.test.ts.
import { Operator } from './framework/operator.mjs';

class GreetingOperator extends Operator {
  start() {
    this.watchResource('/apis/demo.example/v1/namespaces/default/greetings', (type, greeting) => {
      if (type === 'ADDED' || type === 'MODIFIED') this.reconcile(greeting);
    });
  }

  reconcile(greeting) {
    const name = `${greeting.metadata.name}-greeting`;
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
      data: { message: greeting.spec.message },
    };
    // the bug: the write is neither awaited nor caught
    this.objects.patch(configMap, undefined, undefined, 'greeting-operator', true, 'application/apply-patch+yaml');
  }
}

console.log('greeting operator started');
new GreetingOperator().start();
