/**
 * The operator's own memory, in a process of its own: `node --expose-gc --import tsx
 * bench/runtime-rss.ts <count>` converges `count` Applications (3 children each) on the in-memory
 * cluster and prints the RSS before the controller started and after convergence, as JSON.
 * Run inside the bench process, the reading depended on what earlier suites left behind (4 MiB
 * after the core suite, 177 MiB alone); here nothing else has run.
 */
import { converged, rss } from './runtime.bench.js';

const count = Number(process.argv[2]);
if (!Number.isInteger(count) || count <= 0) {
  process.stderr.write('usage: runtime-rss.ts <count of Applications>\n');
  process.exit(2);
}
const { controller, rssWithoutController } = await converged(count);
const rssConverged = rss();
await controller.stop(0);
console.log(JSON.stringify({ rssWithoutController, rssConverged, peakRss: process.resourceUsage().maxRSS * 1024 }));
process.exit(0);
