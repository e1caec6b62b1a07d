/**
 * Conflicts between Applications: two or more declaring the same object (one group, kind,
 * namespace and name, whatever version names it). Who wins on the server follows the owner mark
 * (docs/decisions/0014-ownership-marks.md): the Application whose mark the live object carries
 * keeps it and every other stalls `NotOwned`; an unmarked object is taken only with `spec.adopt`;
 * an object that does not exist yet goes to whichever Application creates it first (the others'
 * creations are refused `AlreadyExists`, then they stall `NotOwned`).
 */
import { groupOf, type ObjectRef } from '../model/resource.js';

/** One Application as a contender for the objects it declares. */
export type Contender = {
  /** Its position in the fleet. */
  readonly index: number;
  /** Its owner mark (`namespace/name`). */
  readonly mark: string;
  readonly adopt: boolean;
  readonly declares: ReadonlyArray<ObjectRef>;
};

export type ConflictWinner =
  /** The live object carries this contender's mark: it keeps it. */
  | { readonly type: 'Owner'; readonly index: number }
  /** The live object carries the mark of an Application outside the contenders: every contender stalls. */
  | { readonly type: 'OwnedElsewhere'; readonly owner: string }
  /** The live object is unmarked: nobody without `spec.adopt` takes it; `adopters` race for it. */
  | { readonly type: 'Unowned'; readonly adopters: ReadonlyArray<number> }
  /** The object does not exist: the first to create it wins, the order is the operator's queue's. */
  | { readonly type: 'FirstToCreate' };

export type FleetConflict = {
  readonly object: ObjectRef;
  /** The contenders' positions in the fleet, in fleet order. */
  readonly applications: ReadonlyArray<number>;
  readonly winner: ConflictWinner;
};

/** `group/Kind/namespace/name` (the version left out: one object, whatever version names it). */
export const objectKey = (ref: ObjectRef): string =>
  `${groupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;

/**
 * Every object two or more contenders declare, in the order first declared; `owners`: the live
 * objects' owner marks by `objectKey` (`null`: exists unmarked; absent: does not exist).
 */
export const fleetConflicts = (
  contenders: ReadonlyArray<Contender>,
  owners: ReadonlyMap<string, string | null>,
): ReadonlyArray<FleetConflict> => {
  const claims = new Map<string, { object: ObjectRef; applications: number[] }>();
  for (const contender of contenders)
    for (const ref of contender.declares) {
      const key = objectKey(ref);
      const claim = claims.get(key) ?? { object: ref, applications: [] };
      claims.set(key, claim);
      if (!claim.applications.includes(contender.index)) claim.applications.push(contender.index);
    }
  const byIndex = new Map(contenders.map((c) => [c.index, c]));
  return [...claims]
    .filter(([, claim]) => claim.applications.length > 1)
    .map(([key, claim]) => ({ ...claim, winner: winnerOf(owners.get(key), claim.applications, byIndex) }));
};

const winnerOf = (
  owner: string | null | undefined,
  applications: ReadonlyArray<number>,
  contenders: ReadonlyMap<number, Contender>,
): ConflictWinner => {
  if (owner === undefined) return { type: 'FirstToCreate' };
  if (owner === null)
    return { type: 'Unowned', adopters: applications.filter((index) => contenders.get(index)?.adopt === true) };
  const keeper = applications.find((index) => contenders.get(index)?.mark === owner);
  return keeper === undefined ? { type: 'OwnedElsewhere', owner } : { type: 'Owner', index: keeper };
};
