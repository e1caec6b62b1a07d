/**
 * Where each `cluster:up` records its process id and kubeconfig (one file per process, so
 * several engineers on one machine do not overwrite each other), for `cluster:down` to stop it.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type ClusterState = { readonly pid: number; readonly kubeconfigPath: string; readonly dir: string };

export const stateDir = (): string => join(process.env.XDG_RUNTIME_DIR ?? tmpdir(), 'kreconcile-cluster-up');

const fileOf = (pid: number): string => join(stateDir(), `${pid}.json`);

export const writeState = (state: ClusterState): void => {
  mkdirSync(stateDir(), { recursive: true });
  writeFileSync(fileOf(state.pid), `${JSON.stringify(state)}\n`);
};

/** Every recorded cluster:up, dead or alive. */
export const readStates = (): ReadonlyArray<ClusterState> => {
  try {
    return readdirSync(stateDir())
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => {
        try {
          return [JSON.parse(readFileSync(join(stateDir(), f), 'utf8')) as ClusterState];
        } catch {
          return [];
        }
      });
  } catch {
    return [];
  }
};

export const clearState = (pid: number): void => rmSync(fileOf(pid), { force: true });
