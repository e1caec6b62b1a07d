#!/usr/bin/env node
/**
 * The `kreconcile` executable. It checks the Node version before loading anything else (the
 * process's composition root, `process-main.ts`, is imported only then), so an old Node gets one
 * line saying what to do instead of a stack trace from a dependency. Then, still before anything
 * imports @kubernetes/client-node, it has the client load without its generated API classes and
 * models, which kreconcile never uses (about 40 MiB of the operator's RSS; lean-client-node.ts), and
 * `run` sizes its V8 heap for a long-running process (operator-heap.ts).
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem === undefined) {
  const { registerLeanClientNode } = await import('../../adapters/kubernetes/lean-client-node.js');
  registerLeanClientNode();
  const { runsOperator, tuneOperatorHeap } = await import('./operator-heap.js');
  if (runsOperator(process.argv.slice(2))) tuneOperatorHeap();
  await import('./process-main.js');
} else {
  process.stderr.write(`error: ${problem}\n`);
  process.exitCode = 1;
}
