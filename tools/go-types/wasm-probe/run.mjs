import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
require(process.argv[2]);
const t0 = performance.now();
const go = new globalThis.Go();
const { instance } = await WebAssembly.instantiate(readFileSync(process.argv[3]), go.importObject);
go.run(instance);
const t1 = performance.now();
const deployment = JSON.stringify({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 3,
    minReadySeconds: 0,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            ports: [{ containerPort: 8080 }],
            resources: { requests: { cpu: '100m', memory: '128Mi' } },
          },
        ],
      },
    },
  },
});
console.log(globalThis.kstore(deployment));
for (let i = 0; i < 500; i++) globalThis.kstore(deployment);
const t2 = performance.now();
const n = 5000;
for (let i = 0; i < n; i++) globalThis.kstore(deployment);
const t3 = performance.now();
console.log(`start ${(t1 - t0).toFixed(0)} ms, ${(((t3 - t2) * 1000) / n).toFixed(1)} µs per decode+encode`);
process.exit(0);
