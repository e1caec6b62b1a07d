#!/usr/bin/env node
/**
 * The `kreconcile` executable. It checks the Node version before loading anything else (the
 * process's composition root, `process-main.ts`, is imported only then), so an old Node gets one
 * line saying what to do instead of a stack trace from a dependency.
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem === undefined) await import('./process-main.js');
else {
  process.stderr.write(`error: ${problem}\n`);
  process.exitCode = 1;
}
