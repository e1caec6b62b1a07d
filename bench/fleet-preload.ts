/**
 * Loaded by `node --import` before a fleet contender (bench/fleet-contender.ts): what the
 * `kreconcile` executable does before anything imports @kubernetes/client-node
 * (app/cli/kreconcile.ts) for `run`, so the contenders load the client and size their heap as the
 * operator does. `FLEET_CONTENDER_UNTUNED=1` (bench:fleet --memory variants) keeps V8's defaults.
 */
import { registerLeanClientNode } from '../adapters/kubernetes/lean-client-node.js';
import { tuneOperatorHeap } from '../app/cli/operator-heap.js';

registerLeanClientNode();
if (process.env.FLEET_CONTENDER_UNTUNED !== '1') tuneOperatorHeap();
