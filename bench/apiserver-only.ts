/**
 * `npm run bench:apiserver`: only the real API server suite (opt-in; needs the kube-apiserver and
 * etcd binaries, see tools/k8s-bin): operator convergence against creating the same objects directly.
 */
import { apiServerBenchmarks } from './apiserver.bench.js';

const flag = (name: string, fallback: number): number =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
for (const row of await apiServerBenchmarks(
  flag('applications', 100),
  (line) => process.stderr.write(`${line}\n`),
  flag('rounds', 3),
  // --qps=, --burst=, --max-in-flight=: the client flow control of the operator under test (adapter defaults otherwise)
  {
    ...(process.argv.some((arg) => arg.startsWith('--qps=')) ? { qps: flag('qps', 0) } : {}),
    ...(process.argv.some((arg) => arg.startsWith('--burst=')) ? { burst: flag('burst', 0) } : {}),
    ...(process.argv.some((arg) => arg.startsWith('--max-in-flight='))
      ? { maxInFlight: flag('max-in-flight', 0) }
      : {}),
  },
)) {
  console.log(
    `${row.case}: ${row.valueMs?.toFixed(0)} ms, ${row.baselineName ?? ''} ${row.baselineMs?.toFixed(0)} ms, ratio ${row.ratio?.toFixed(2)}`,
  );
  const cpu = (who: string, value: unknown, baseline: unknown, ratio: unknown): string =>
    `${who} CPU ${Number(value).toFixed(0)} ms, baseline ${Number(baseline).toFixed(0)} ms, ratio ${Number(ratio).toFixed(2)}`;
  console.log(
    cpu('control plane (etcd + kube-apiserver)', row.serverCpuMs, row.baselineServerCpuMs, row.serverCpuRatio),
  );
  console.log(
    cpu('this process (operator, or the direct client)', row.clientCpuMs, row.baselineClientCpuMs, row.clientCpuRatio),
  );
}
