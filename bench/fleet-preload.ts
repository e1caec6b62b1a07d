/**
 * Loaded by `node --import` before a fleet contender (bench/fleet-contender.ts): what the
 * `kreconcile` executable does before anything imports @kubernetes/client-node
 * (app/cli/kreconcile.ts) for `run`, so the contenders load the client and size their heap as the
 * operator does. For bench:fleet --memory variants: `FLEET_CONTENDER_UNTUNED=1` keeps V8's defaults,
 * `FLEET_CONTENDER_V8_FLAGS` (space-separated) are set at start instead of the operator's flags.
 */
import { setFlagsFromString } from 'node:v8';
import { registerLeanClientNode } from '../adapters/kubernetes/lean-client-node.js';
import { tuneOperatorHeap } from '../app/cli/operator-heap.js';

registerLeanClientNode();
const instead = process.env.FLEET_CONTENDER_V8_FLAGS;
if (instead !== undefined) for (const flag of instead.split(' ').filter((f) => f !== '')) setFlagsFromString(flag);
else if (process.env.FLEET_CONTENDER_UNTUNED !== '1') tuneOperatorHeap();
