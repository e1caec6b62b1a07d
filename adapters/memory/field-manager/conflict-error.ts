/**
 * The 409 of a server-side apply that would change fields other managers own, worded as k8s.io/apimachinery words it
 * (conflict.go).
 */
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { pathsOf } from './field-set.js';
import { managerText } from './field-manager.js';
import { pathText } from './path-element.js';
import type { Conflicts } from './updater.js';

export const conflictError = (conflicts: Conflicts): ClusterError => {
  const managers = [...conflicts.keys()].sort();
  const listed = managers.flatMap((manager) =>
    pathsOf(conflicts.get(manager) ?? { members: new Map(), children: new Map() }).map((path) => ({
      manager,
      field: pathText(path),
    })),
  );
  const first = listed[0];
  const message =
    listed.length === 1 && first !== undefined
      ? `Apply failed with 1 conflict: conflict with ${managerText(first.manager)}: ${first.field}`
      : `Apply failed with ${listed.length} conflicts: ${managers
          .flatMap((manager) => [
            `conflicts with ${managerText(manager)}:`,
            ...listed.filter((c) => c.manager === manager).map((c) => `- ${c.field}`),
          ])
          .join('\n')}`;
  return clusterError('Conflict', message, {
    causes: listed.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${managerText(c.manager)}`,
      field: c.field,
    })),
  });
};
