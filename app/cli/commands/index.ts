/**
 * The commands of `kreconcile`, in help order. A new command is one file in this directory
 * exporting a `CliCommand`, added here (the operator's `run`, `crd` and `rbac` plug in this way).
 */
import type { CliCommand } from '../command.js';
import { applyCommand } from './apply.js';
import { planCommand } from './plan.js';
import { fleetPlanCommand } from './fleet-plan.js';
import { showCommand } from './show.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { crdCommand, deployCommand, rbacCommand } from './manifests.js';
import { snapshotCommand } from './snapshot.js';
import { validateCommand } from './validate.js';
import { wrapCommand } from './wrap.js';

export const COMMANDS: ReadonlyArray<CliCommand> = [
  runCommand,
  serveCommand,
  planCommand,
  fleetPlanCommand,
  showCommand,
  applyCommand,
  validateCommand,
  wrapCommand,
  snapshotCommand,
  crdCommand,
  rbacCommand,
  deployCommand,
];
