/**
 * Composition root of the `kreconcile` executable, loaded by `kreconcile.ts` once the Node version
 * is known to be supported: the only module touching `process` (argv, stdin, stdout/stderr, TTY,
 * environment, exit code). Everything else is `run(argv, io)`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isJsonObject } from '../../core/json/json.js';
import { readCapped, readFileCapped } from './input/capped.js';
import type { CliIo, ClusterTarget } from './io.js';
import { kubeconfigProblem } from './live/kubeconfig.js';
import { connectKubernetes, connectWritable, supportsLiveClusters, unsupportedNode } from './live/kubernetes.js';
import { fetchOpenApiDocuments } from './live/openapi.js';
import { run } from './main.js';
import { writePrivateFile } from './saved-plan/private-file.js';
import { builtinSchemas } from '../../adapters/schemas/builtin-schemas.js';

/** The version in the nearest package.json above this module (source and dist layouts differ in depth). */
const packageVersion = (): string => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (!isJsonObject(manifest)) continue;
      if (manifest.name === 'kreconcile' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // no package.json here: keep walking up
    }
  }
  return 'unknown';
};

/**
 * Before any live read: a Node that can load the client library, and a kubeconfig to give it
 * (without one the library would try http://localhost:8080 and fail with a TLS message).
 */
const liveReadable = (target: ClusterTarget): void => {
  if (!supportsLiveClusters(process.versions.node)) throw unsupportedNode(process.versions.node);
  const missing = kubeconfigProblem(target, process.env, existsSync);
  if (missing !== undefined) throw new Error(missing);
};

/**
 * A reader that goes away (`kreconcile plan --help | head`) is no error of ours: end quietly, as
 * git and kubectl do, instead of Node's unhandled 'error' event and its stack trace.
 */
const endWhenReaderLeaves = (stream: NodeJS.WriteStream): void => {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit();
  });
};
endWhenReaderLeaves(process.stdout);
endWhenReaderLeaves(process.stderr);

const io: CliIo = {
  stdout: {
    write: (text) => {
      process.stdout.write(text);
    },
  },
  stderr: {
    write: (text) => {
      process.stderr.write(text);
    },
  },
  isTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  env: process.env,
  readStdin: (maxBytes) => readCapped(process.stdin, maxBytes),
  readFile: (path) => readFile(path, 'utf8'),
  readDirectory: async (path) =>
    (await readdir(path, { withFileTypes: true })).map((entry) => ({
      name: entry.name,
      directory: entry.isDirectory(),
    })),
  readFileCapped,
  now: () => new Date(),
  connect: async (target) => {
    liveReadable(target);
    return connectKubernetes(target);
  },
  connectWritable: async (target) => {
    liveReadable(target);
    return connectWritable(target);
  },
  writeFile: writePrivateFile,
  fetchOpenApi: async (target, apiVersions) => {
    liveReadable(target);
    return fetchOpenApiDocuments(target, apiVersions);
  },
  builtinSchemas,
  version: packageVersion(),
  onSignal: (handler) => {
    process.once('SIGTERM', () => handler('SIGTERM'));
    process.once('SIGINT', () => handler('SIGINT'));
  },
};

// exitCode, not exit(): pending stdout writes to a pipe are flushed before the process ends.
process.exitCode = await run(process.argv.slice(2), io);
// Idle keep-alive sockets of the HTTP client (e.g. after `run` stops) must not keep the process
// alive; the timer itself does not hold the event loop open (unref), so short commands end at once.
setTimeout(() => process.exit(), 2_000).unref();
