/**
 * The field-ownership forecast under a plan (docs/field-owners.md): who else owns each field a patch
 * writes (from the snapshot's managedFields), and the observed fields left to the controllers that
 * own them (`status.contestedFields`), with the observer-schema change that ends the fight.
 */
import { adviceFor, showRef, type ContestedField, type FieldOwner } from '../../../core/internal.js';
import type { Planned } from '../planning/plan-applications.js';
import type { Style } from '../style.js';

/** `kube-controller-manager (Update via /scale, 2026-12-02T05:00:00Z)`. */
export const showOwner = (owner: FieldOwner): string => {
  const via = owner.subresource === undefined ? '' : ` via /${owner.subresource}`;
  const when = owner.time === undefined ? '' : `, ${owner.time}`;
  const part = owner.extent === 'part' ? ', fields inside it' : '';
  return `${owner.manager} (${owner.operation}${via}${when}${part})`;
};

/** `apps/v1 Deployment shop/web spec.replicas: owned by …, manager … via /scale since …`. */
export const showContested = (field: ContestedField): string =>
  `${showRef(field.resource)} ${field.path}: owned by ${field.controller}, manager ${field.manager}${field.subresource === undefined ? '' : ` via /${field.subresource}`}${field.since === undefined ? '' : ` since ${field.since}`}`;

/** The text lines: empty when no patched field has another owner and nothing is contested. */
export const fieldOwnerLines = (planned: Planned, style: Style): ReadonlyArray<string> => {
  const owners = planned.owners ?? [];
  const contested = planned.plan.status.contestedFields ?? [];
  return [
    ...(owners.length === 0 ? [] : [style.dim('  Patched fields other managers own now:')]),
    ...owners.map((entry) => `    ${showRef(entry.resource)} ${entry.path}: ${entry.owners.map(showOwner).join(', ')}`),
    ...(contested.length === 0
      ? []
      : [style.yellow('  Left to their controllers (not patched back, see status.contestedFields):')]),
    ...contested.flatMap((field) => [`    ${showContested(field)}`, style.dim(`      to end it: ${adviceFor(field)}`)]),
  ];
};

/** The markdown lines of the same forecast; `plain` escapes what a client wrote (manager names, paths). */
export const fieldOwnerMarkdown = (planned: Planned, plain: (text: string) => string): ReadonlyArray<string> => {
  const owners = planned.owners ?? [];
  const contested = planned.plan.status.contestedFields ?? [];
  return [
    ...(owners.length === 0 ? [] : ['', '**Patched fields other managers own now**', '']),
    ...owners.map(
      (entry) => `- ${plain(`${showRef(entry.resource)} ${entry.path}: ${entry.owners.map(showOwner).join(', ')}`)}`,
    ),
    ...(contested.length === 0 ? [] : ['', '**Left to their controllers** (not patched back)', '']),
    ...contested.map((field) => `- ${plain(`${showContested(field)}. To end it: ${adviceFor(field)}.`)}`),
  ];
};
