/**
 * The Node versions kreconcile runs on, checked first thing at start-up (before any module that
 * needs a newer Node is loaded): @kubernetes/client-node 2 brings undici 8, which needs Node >= 22.19
 * and fails on older Node with a TypeError deep in its own code. This module imports nothing, so it
 * loads on any Node.
 */
export const MINIMUM_NODE: readonly [number, number] = [22, 19];

/** Whether `version` (as `process.versions.node`, with or without a leading v) is at least the minimum. */
export const supportedNode = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
};

/**
 * One line saying what to do on a Node that is too old, or undefined. The advice holds anywhere:
 * `npx kreconcile` in a project runs the Node on the PATH, so that Node is what must change.
 */
export const nodeVersionProblem = (version: string): string | undefined =>
  supportedNode(version)
    ? undefined
    : `kreconcile needs Node >= ${MINIMUM_NODE.join('.')}; this is ${version.replace(/^v/, '')}: install Node ${MINIMUM_NODE.join('.')} or later (e.g. nvm install 22) and run it again`;
