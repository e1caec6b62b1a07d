/**
 * Loads @kubernetes/client-node's KubeConfig without the generated API classes and models.
 *
 * The client's `dist/config.js` (KubeConfig: kubeconfig files, in-cluster config, TLS, exec, OIDC,
 * Azure and GCP auth) takes `createConfiguration` and `ServerConfiguration` from `./gen/index.js`,
 * and that module re-exports every generated API class, the ObjectSerializer and its ~2 700 models.
 * Loading them costs the operator about 43 MiB of RSS (137 → 94 MiB before its first request in
 * bench:fleet) and 15 MiB of heap, for code kreconcile never uses: it sends raw JSON requests
 * (rest-client.ts) and watches (watch-source.ts).
 *
 * `registerLeanClientNode` installs a module resolution hook (node:module `registerHooks`,
 * synchronous, in the same thread) that answers config.js's import of `./gen/index.js` with a
 * module re-exporting just those two names from the client's own files (`gen/configuration.js`,
 * `gen/servers.js`). Nothing of the client is copied and every feature stays: the same KubeConfig
 * code runs on the same configuration objects. Any other importer of `./gen/index.js` gets the
 * real module. Before answering, the hook reads the names config.js imports from there: should a
 * client release import a name the stand-in does not provide, config.js gets the real module (the
 * full client loads, as without the hook) instead of failing to link
 * (test/adapters/kubernetes/lean-client-node.test.ts checks today's import list too).
 *
 * It must run before the client is first imported: the `kreconcile` executable calls it right
 * after its Node version check, before loading anything else. Library users may call it the same
 * way; without it everything works as before, with the full client loaded.
 */
import { readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

/** What client-node's config.js imports from `./gen/index.js`, each with the file that defines it. */
export const LEAN_GEN_EXPORTS: Readonly<Record<string, string>> = {
  createConfiguration: './gen/configuration.js',
  ServerConfiguration: './gen/servers.js',
};

const CONFIG_MODULE = /\/@kubernetes\/client-node\/dist\/config\.js$/;

/** The source of the module that stands in for `./gen/index.js`, for the config.js at `configUrl`. */
export const leanGenModuleSource = (configUrl: string): string =>
  Object.entries(LEAN_GEN_EXPORTS)
    .map(([name, file]) => `export { ${name} } from ${JSON.stringify(new URL(file, configUrl).href)};`)
    .join('\n');

/** Whether `parentUrl` importing `specifier` is client-node's config.js importing the generated index. */
export const isConfigGenImport = (specifier: string, parentUrl: string | undefined): boolean =>
  specifier === './gen/index.js' && parentUrl !== undefined && CONFIG_MODULE.test(parentUrl);

/** The names an ES module's source imports from `./gen/index.js` (`a as b` read as `a`). */
export const genIndexImports = (source: string): ReadonlyArray<string> =>
  [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]\.\/gen\/index\.js['"]/g)].flatMap((match) =>
    (match[1] ?? '')
      .split(',')
      .map((name) => name.trim().split(/\s+as\s+/)[0] ?? '')
      .filter((name) => name !== ''),
  );

/** Whether the stand-in provides every name the config.js at `configUrl` imports from the generated index. */
const standInSuffices = (configUrl: string): boolean => {
  try {
    const imported = genIndexImports(readFileSync(fileURLToPath(configUrl), 'utf8'));
    return imported.length > 0 && imported.every((name) => Object.hasOwn(LEAN_GEN_EXPORTS, name));
  } catch {
    return false; /* unreadable: load the real module, as without the hook */
  }
};

/**
 * Installs the hook (see the module comment). Returns false, changing nothing, on a Node without
 * `registerHooks` (before 22.15: the executable refuses those anyway) — the full client then loads.
 */
export const registerLeanClientNode = (): boolean => {
  // Read through the namespace: a named import would fail to link on a Node without it.
  const register: unknown = Reflect.get(nodeModule, 'registerHooks');
  if (typeof register !== 'function') return false;
  // Checked once per config.js file (one, unless several copies of the client are installed).
  const checked = new Map<string, boolean>();
  const leanFor = (configUrl: string): boolean => {
    const known = checked.get(configUrl);
    if (known !== undefined) return known;
    const suffices = standInSuffices(configUrl);
    checked.set(configUrl, suffices);
    return suffices;
  };
  nodeModule.registerHooks({
    resolve: (specifier, context, nextResolve) =>
      isConfigGenImport(specifier, context.parentURL) && leanFor(context.parentURL ?? '')
        ? {
            url: `data:text/javascript,${encodeURIComponent(leanGenModuleSource(context.parentURL ?? ''))}`,
            format: 'module',
            shortCircuit: true,
          }
        : nextResolve(specifier, context),
  });
  return true;
};
