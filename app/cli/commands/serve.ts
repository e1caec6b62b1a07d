/**
 * `kreconcile serve`: the in-memory API server as a Kubernetes endpoint on loopback, with a
 * kubeconfig for kubectl and any other client; loaded from -f files (any objects: CRDs and
 * Applications validated) and --snapshot recordings, optionally with the operator running inside (`--operator`). Like
 * `kind create cluster`: one
 * command to an API server you can point kubectl at, in milliseconds and with no container.
 */
import { lstat } from 'node:fs/promises';
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import type { MemoryCluster } from '../../../adapters/memory/index.js';
import { systemClock } from '../../../adapters/memory/index.js';
import { serveMemoryCluster, type ServedCluster } from '../../../adapters/memory/http/index.js';
import type { ReconcileResult } from '../../reconcile/reconcile-application.js';
import { startOperator, type Operator } from '../../runtime/operator.js';
import { errnoCode, usageError, type CliError } from '../cli-error.js';
import {
  collect,
  filenameOption,
  namespaceOption,
  recursiveOption,
  reportErrors,
  type CliCommand,
  type CommandContext,
} from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { readServeInputs } from '../input/serve-inputs.js';
import { startEmbeddedCluster } from '../operate/embedded-cluster.js';
import { writePrivateFile } from '../saved-plan/private-file.js';
import { progressLines } from '../operate/progress.js';
import { styleFor } from '../style.js';
import { makeLogger } from './run.js';

/** The flags as commander gives them. */
export type ServeFlags = {
  readonly filename: ReadonlyArray<string>;
  readonly snapshot: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly namespace: string;
  readonly port: string;
  readonly writeKubeconfig: string;
  readonly operator?: boolean;
  readonly logLevel: string;
};

const EXAMPLES = `
Examples:
  # an empty API server (the Application CRD installed), then kubectl against it
  kreconcile serve
  KUBECONFIG=kreconcile-memory.kubeconfig kubectl create namespace shop
  # loaded with an example, the operator reconciling it inside; kubectl shows the Ready column
  kreconcile serve -f examples/webapp/app.yaml --operator --port 6443
  # starting from what a real cluster holds (recorded with kreconcile snapshot or kubectl get -o yaml)
  kreconcile serve --snapshot live.yaml
  KUBECONFIG=kreconcile-memory.kubeconfig kubectl get applications -A

The endpoint is plain HTTP on 127.0.0.1 without authentication (kubectl sends no bearer token
over plain HTTP): anyone on this machine can reach it while it runs. Web pages cannot: a request
naming another Host than 127.0.0.1, localhost or [::1] (DNS rebinding) or carrying another Origin
(a browser's cross-site request) is refused with 403. It stores what a real
kube-apiserver stores, with its size limits (1 MiB ConfigMap/Secret data, 1.5 MiB objects,
3 MiB request bodies); it keeps nothing after it stops. Stop it with Ctrl-C (SIGINT) or SIGTERM.
Its state and what it does not serve: docs/testing.md §5.

${EXIT_CODES_HELP}
`;

/** The flags decoded: the port as a number. */
export type ServeRequest = Omit<ServeFlags, 'port'> & { readonly port: number };

/** A pure decoding of the flags, tested on its own (issue 40 item 2). */
export const decodeServeFlags = (options: ServeFlags): E.Either<ReadonlyArray<CliError>, ServeRequest> => {
  const port = Number(options.port);
  return /^\d+$/.test(options.port) && port <= 65_535
    ? E.right({ ...options, port })
    : E.left([usageError(`--port ${options.port}: expected a port number (0 to 65535; 0 picks a free one)`)]);
};

type Loaded = { readonly cluster: MemoryCluster; readonly applications: number; readonly objects: number };

/** The embedded cluster: empty but for the Application CRD without inputs, else loaded from the files. */
const loadCluster = async (
  context: CommandContext,
  options: ServeRequest,
): Promise<E.Either<string | undefined, Loaded>> => {
  const inputs = await readServeInputs(context.io, options);
  if (E.isLeft(inputs)) {
    reportErrors(context.io, inputs.left);
    return E.left(undefined);
  }
  const { crds, applications, objects } = inputs.right;
  const started = await startEmbeddedCluster({ crds, applications, objects, defaultNamespace: options.namespace });
  return E.map((cluster: MemoryCluster) => ({ cluster, applications: applications.length, objects: objects.length }))(
    started,
  );
};

/**
 * Writes the kubeconfig 0600, never through a symbolic link: a link planted at the path (in a
 * shared directory) would otherwise redirect the write to a file of the attacker's choosing.
 * `writePrivateFile` writes a fresh 0600 file and renames it over the path.
 */
export const writeKubeconfig = async (path: string, text: string): Promise<E.Either<string, void>> => {
  try {
    const existing = await lstat(path).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (existing?.isSymbolicLink() === true)
      return E.left(`--write-kubeconfig ${path}: is a symbolic link, which is never followed: name a regular file`);
    await writePrivateFile(path, text);
    return E.right(undefined);
  } catch (error) {
    return E.left(`--write-kubeconfig ${path}: cannot write it (${errnoCode(error) ?? String(error)})`);
  }
};

/** Binds the port and writes the kubeconfig; a port in use is a one-line error, not a stack trace. */
const listen = async (
  cluster: MemoryCluster,
  port: number,
  kubeconfigPath: string,
): Promise<E.Either<string, ServedCluster>> => {
  let served: ServedCluster;
  try {
    served = await serveMemoryCluster(cluster, { port, auth: 'none' });
  } catch (error) {
    if (errnoCode(error) === 'EADDRINUSE')
      return E.left(`--port ${port}: the port is in use: choose another (0 picks a free one)`);
    throw error;
  }
  const written = await writeKubeconfig(kubeconfigPath, served.kubeconfig);
  if (E.isRight(written)) return E.right(served);
  await served.close();
  return written;
};

const execute = async (context: CommandContext, flags: ServeFlags): Promise<void> => {
  const { io } = context;
  const fail = (message: string): void => {
    reportErrors(io, [usageError(message)]);
    context.exit(EXIT_ERROR);
  };
  const request = decodeServeFlags(flags);
  if (E.isLeft(request)) {
    reportErrors(io, request.left);
    return context.exit(EXIT_ERROR);
  }
  const options = request.right;
  const loaded = await loadCluster(context, options);
  if (E.isLeft(loaded)) return loaded.left === undefined ? context.exit(EXIT_ERROR) : fail(loaded.left);
  const { cluster, applications, objects } = loaded.right;
  const served = await listen(cluster, options.port, options.writeKubeconfig);
  if (E.isLeft(served)) return fail(served.left);
  io.stdout.write(
    [
      `in-memory API server serving on ${served.right.url} with ${applications} Application(s) and ${objects} other object(s)`,
      `kubeconfig written to ${options.writeKubeconfig}: export KUBECONFIG=${options.writeKubeconfig}`,
      '',
    ].join('\n'),
  );
  let operator: Operator | undefined;
  if (options.operator === true) {
    const style = styleFor(io);
    operator = await startOperator({
      cluster,
      clock: systemClock,
      random: Math.random,
      logger: makeLogger(context, options.logLevel),
      onReconciled: (key: string, result: ReconcileResult) => {
        const time = new Date(systemClock.now()).toISOString().slice(11, 19);
        for (const line of progressLines(key, result, style, time)) io.stdout.write(`${line}\n`);
      },
      monotonic: () => performance.now(),
    });
    io.stdout.write('operator running inside: reconciling Applications as they are created or changed\n');
  }
  const signal = await new Promise<string>((resolve) => {
    if (io.onSignal === undefined) return resolve('no signal source');
    io.onSignal(resolve);
  });
  io.stdout.write(`${signal}: shutting down\n`);
  await operator?.stop(5_000);
  await served.right.close();
  io.stdout.write('stopped\n');
  context.exit(EXIT_OK);
};

export const serveCommand: CliCommand = {
  name: 'serve',
  create: (context) =>
    new Command('serve')
      .summary('serve the in-memory API server for kubectl (optionally with the operator inside)')
      .description(
        'Serves the in-memory API server on 127.0.0.1 as a Kubernetes API endpoint and writes a kubeconfig for it; loads the -f files (any objects, as kubectl apply -f creates them; Applications and CRDs validated first) and --snapshot recordings as the starting state; with --operator, runs the Application controller against it. Runs until SIGINT/SIGTERM.',
      )
      .addOption(filenameOption('objects to load before serving: Applications, CRDs, plain manifests'))
      .addOption(
        new Option(
          '--snapshot <file>',
          'live objects to start from (kreconcile snapshot or kubectl get -o yaml output, status included); repeatable',
        )
          .argParser(collect)
          .default([], 'none'),
      )
      .addOption(recursiveOption())
      .addOption(namespaceOption())
      .addOption(new Option('--port <port>', 'port on 127.0.0.1 (0: a free one)').default('0'))
      .addOption(
        new Option('--write-kubeconfig <path>', 'write the kubeconfig of the endpoint here (mode 0600)').default(
          'kreconcile-memory.kubeconfig',
        ),
      )
      .addOption(new Option('--operator', 'run the operator inside, reconciling the Applications it stores'))
      .addOption(
        new Option('--log-level <level>', 'with --operator: debug, info, warn or error')
          .choices(['debug', 'info', 'warn', 'error'])
          .default('info'),
      )
      .addHelpText('after', EXAMPLES)
      .action(async (options: ServeFlags) => execute(context, options)),
};
