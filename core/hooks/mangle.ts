/** The mangling step (docs/behaviour.md §4.4): the enabled hooks applied to the desired state, in a fixed order. */
import type { ObserverSchema } from '../model/observer-schema.js';
import type { Resource } from '../model/resource.js';
import { callbackHook } from './callback-hook.js';
import type { MangleContext, MangleHook, Mangled } from './types.js';

/** A registry of hooks by name; its order is the order hooks run in. */
export type HookRegistry = ReadonlyArray<readonly [string, MangleHook]>;

/** kreconcile's hooks: `complete`, then `shutdown`. */
export const builtinHooks: HookRegistry = [
  ['complete', callbackHook('complete')],
  ['shutdown', callbackHook('shutdown')],
];

/**
 * Applies the hooks named in `hooks` (e.g. `spec.hooks`) to the desired state and schema.
 * Guarantees: deterministic — hooks run in registry order whatever the order or repetitions in
 * `hooks`; names not in the registry are ignored (the codec admits only known ones); pure.
 */
export const mangle = (args: {
  readonly desired: ReadonlyArray<Resource>;
  readonly mangledSchema: ReadonlyArray<ObserverSchema>;
  // Names of `Hook`s, or of a caller's own registry entries: any string.
  readonly hooks: ReadonlyArray<string> | undefined;
  readonly context: MangleContext;
  readonly registry?: HookRegistry;
}): Mangled => {
  const enabled = new Set(args.hooks ?? []);
  const start: Mangled = { desired: args.desired, mangledSchema: args.mangledSchema };
  if (enabled.size === 0) return start;
  return (args.registry ?? builtinHooks)
    .filter(([name]) => enabled.has(name))
    .reduce((mangled, [, hook]) => hook(mangled.desired, mangled.mangledSchema, args.context), start);
};
