/** The shape of the table tools/go-types generates (core/canonical/go-types.generated.ts). */
import type { JsonValue } from '../json/json.js';

/**
 * One JSON field of a struct: its name, its type and flags (`p` a pointer, `e` tagged omitempty,
 * `z` omitzero, `i` from an embedded struct, `d` its zero value is not stored), then what the
 * encoder writes at its zero value when it writes one (`null` for a nil pointer, `{}` for a struct…).
 *
 * A type is `string`, `bool`, `int`, `float`, `bytes` (`[]byte`, base64), `quantity`,
 * `resourceList` (core/v1 ResourceList: a map of quantities), `intOrString`, `time`, `microTime`,
 * `duration`, `raw` (JSON of its own: RawExtension, apiextensions JSON, …), `[]T`, `map[]T`, or
 * `@name` for a struct of the table.
 */
export type GoField = readonly [name: string, type: string, flags: string, zero?: JsonValue];

export type GoTypeTable = {
  /** `apiVersion/Kind` → the struct's name. */
  readonly kinds: Readonly<Record<string, string>>;
  readonly types: Readonly<Record<string, ReadonlyArray<GoField>>>;
};
