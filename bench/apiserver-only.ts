/**
 * `npm run bench:apiserver`: only the real API server suite (opt-in; needs the kube-apiserver and
 * etcd binaries, see tools/k8s-bin): operator convergence against creating the same objects directly.
 */
import { apiServerBenchmarks } from './apiserver.bench.js';

const count = Number(process.argv.find((arg) => arg.startsWith('--applications='))?.split('=')[1] ?? 100);
for (const row of await apiServerBenchmarks(count, (line) => process.stderr.write(`${line}\n`))) {
  console.log(`${row.case}: ${row.valueMs?.toFixed(0)} ms, ${row.baselineName ?? ''} ${row.baselineMs?.toFixed(0)} ms, ratio ${row.ratio?.toFixed(2)}`);
}
