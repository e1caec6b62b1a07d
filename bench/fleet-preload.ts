/**
 * Loaded by `node --import` before a fleet contender (bench/fleet-contender.ts): what the
 * `kreconcile` executable does before anything imports @kubernetes/client-node
 * (app/cli/kreconcile.ts), so the contenders load the client as the operator does.
 */
import { registerLeanClientNode } from '../adapters/kubernetes/lean-client-node.js';

registerLeanClientNode();
