/**
 * Server-side printing: the `Table` (meta.k8s.io/v1) kube-apiserver answers when a client asks
 * for it in `Accept` (`application/json;as=Table;g=meta.k8s.io;v=v1`, as `kubectl get` does).
 * Columns of a custom resource are its CRD's `additionalPrinterColumns` for the version read, after
 * Name; without any, Name and Age (apiextensions-apiserver's table convertor). Built-in kinds are
 * printed by printers/ as kube-apiserver prints them.
 */
import { isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import { humanDuration, type ColumnDefinition, type Row } from './printers/index.js';

/** Whether `Accept` asks for a meta.k8s.io/v1 Table (before or instead of a plain object). */
export const wantsTable = (accept: string | undefined): boolean =>
  (accept ?? '').split(',').some((range) => {
    const parameters = range.split(';').map((p) => p.trim().replace(/\s+/g, ''));
    return (
      parameters.includes('as=Table') &&
      parameters.includes('g=meta.k8s.io') &&
      (parameters.includes('v=v1') || !parameters.some((p) => p.startsWith('v=')))
    );
  });

export type PrinterColumn = {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
};

const NAME: PrinterColumn = { name: 'Name', type: 'string', format: 'name', jsonPath: '.metadata.name' };
const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** The printer columns a CRD declares for `version` (undefined entries dropped), or none. */
export const crdPrinterColumns = (crd: JsonValue | undefined, version: string): ReadonlyArray<PrinterColumn> => {
  if (!isJsonObject(crd) || !isJsonObject(crd.spec) || !isJsonArray(crd.spec.versions)) return [];
  const entry = crd.spec.versions.find((v) => isJsonObject(v) && v.name === version);
  if (!isJsonObject(entry) || !isJsonArray(entry.additionalPrinterColumns)) return [];
  return entry.additionalPrinterColumns.flatMap((column) =>
    isJsonObject(column) &&
    typeof column.name === 'string' &&
    typeof column.type === 'string' &&
    typeof column.jsonPath === 'string'
      ? [
          {
            name: column.name,
            type: column.type,
            jsonPath: column.jsonPath,
            ...(typeof column.format === 'string' ? { format: column.format } : {}),
            ...(typeof column.description === 'string' ? { description: column.description } : {}),
            ...(typeof column.priority === 'number' ? { priority: column.priority } : {}),
          },
        ]
      : [],
  );
};

/** One step of the JSONPath subset CRD columns use: `.field`, `[n]`, `[*]`, `[?(@.a.b=="v")]`. */
type Step =
  | { readonly type: 'field'; readonly name: string }
  | { readonly type: 'index'; readonly index: number }
  | { readonly type: 'all' }
  | { readonly type: 'filter'; readonly path: ReadonlyArray<string>; readonly equal: boolean; readonly value: string };

const STEP =
  /^(?:\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[\*\]|\[\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)'|([^)\s]+))\)\])/;

/** The steps of a column's jsonPath (without braces, as CRDs write it), or undefined when outside the subset. */
const stepsOf = (path: string): ReadonlyArray<Step> | undefined => {
  const steps: Step[] = [];
  let rest = path.trim().replace(/^\{(.*)\}$/, '$1');
  while (rest !== '') {
    const match = STEP.exec(rest);
    if (match === null) return undefined;
    const [all, field, index, filterPath, operator, double, single, bare] = match;
    if (field !== undefined) steps.push({ type: 'field', name: field });
    else if (index !== undefined) steps.push({ type: 'index', index: Number(index) });
    else if (filterPath !== undefined)
      steps.push({
        type: 'filter',
        path: filterPath.slice(1).split('.'),
        equal: operator === '==',
        value: double ?? single ?? bare ?? '',
      });
    else steps.push({ type: 'all' });
    rest = rest.slice(all.length);
  }
  return steps;
};

const atPath = (value: JsonValue, path: ReadonlyArray<string>): JsonValue | undefined =>
  path.reduce<JsonValue | undefined>((at, key) => (isJsonObject(at) ? at[key] : undefined), value);

const scalarText = (value: JsonValue | undefined): string | undefined =>
  value === undefined || value === null || typeof value === 'object' ? undefined : String(value);

const apply = (values: ReadonlyArray<JsonValue>, step: Step): ReadonlyArray<JsonValue> =>
  values.flatMap((value): ReadonlyArray<JsonValue> => {
    switch (step.type) {
      case 'field': {
        const field = isJsonObject(value) ? value[step.name] : undefined;
        return field !== undefined ? [field] : [];
      }
      case 'index': {
        const item = isJsonArray(value) ? value[step.index] : undefined;
        return item !== undefined ? [item] : [];
      }
      case 'all':
        return isJsonArray(value) ? value : isJsonObject(value) ? Object.values(value) : [];
      case 'filter':
        return isJsonArray(value)
          ? value.filter((item) => (scalarText(atPath(item, step.path)) === step.value) === step.equal)
          : [];
    }
  });

/**
 * A cell as the table convertor makes it: no result is null, one is itself, several are joined
 * with commas; a `date` column shows the time since then (on the server's clock, `now`).
 */
const cellOf = (object: JsonObject, column: PrinterColumn, now: number): JsonValue => {
  const steps = stepsOf(column.jsonPath);
  if (steps === undefined) return null;
  const results = steps.reduce<ReadonlyArray<JsonValue>>(apply, [object]);
  if (results.length === 0) return null;
  if (results.length > 1) return results.map((r) => (typeof r === 'object' ? JSON.stringify(r) : String(r))).join(',');
  const [value = null] = results;
  if (column.type !== 'date' || typeof value !== 'string') return value;
  const at = Date.parse(value);
  return Number.isNaN(at) ? value : humanDuration(now - at);
};

const partialMetadata = (object: JsonObject): JsonObject => ({
  kind: 'PartialObjectMetadata',
  apiVersion: 'meta.k8s.io/v1',
  metadata: isJsonObject(object.metadata) ? object.metadata : {},
});

/** How a kind is printed: its column definitions and the cells of one object's row (and that row's conditions). */
export type Printer = {
  readonly columns: ReadonlyArray<ColumnDefinition>;
  readonly row: Row;
  readonly conditions?: (object: JsonObject) => ReadonlyArray<JsonObject>;
};

const definitionOf = (column: PrinterColumn): ColumnDefinition => ({
  name: column.name,
  type: column.type,
  format: column.format ?? '',
  description: column.description ?? (column === NAME ? 'Name must be unique within a namespace.' : ''),
  priority: column.priority ?? 0,
});

/**
 * A custom resource's printer: its CRD's columns for the version read (none: Age) after Name, as
 * apiextensions-apiserver's table convertor prints them.
 */
export const crdPrinter = (columns: ReadonlyArray<PrinterColumn>): Printer => {
  const printed = [NAME, ...(columns.length === 0 ? [AGE] : columns)];
  return {
    columns: printed.map(definitionOf),
    row: (object, now) => printed.map((column) => cellOf(object, column, now)),
  };
};

/**
 * The Table of a list (its items) or of one object, printed by `printer`. `includeObject=Object`
 * puts whole objects in the rows, `None` nothing, the default (`Metadata`) a PartialObjectMetadata.
 */
export const tableOf = (
  answer: JsonObject,
  printer: Printer,
  includeObject: string | null,
  now: number,
): JsonObject => {
  const items = answer.items;
  const list = isJsonArray(items);
  const objects = (list ? items : [answer]).filter(isJsonObject);
  const metadata = isJsonObject(answer.metadata) ? answer.metadata : {};
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: list
      ? {
          ...(typeof metadata.resourceVersion === 'string' ? { resourceVersion: metadata.resourceVersion } : {}),
          ...(typeof metadata.continue === 'string' ? { continue: metadata.continue } : {}),
        }
      : {},
    columnDefinitions: printer.columns,
    rows: objects.map((object) => {
      const conditions = printer.conditions?.(object) ?? [];
      return {
        cells: printer.row(object, now),
        ...(conditions.length === 0 ? {} : { conditions }),
        ...(includeObject === 'None' ? {} : { object: includeObject === 'Object' ? object : partialMetadata(object) }),
      };
    }),
  };
};

const PRINTED_EVENTS: ReadonlySet<JsonValue | undefined> = new Set(['ADDED', 'MODIFIED', 'DELETED']);

/**
 * Watch events in Table form (`kubectl get -w`): each object becomes a one-row Table; only the
 * first carries the column definitions, as kube-apiserver sends headers once per watch.
 */
export const tableEvents = (
  printer: Printer,
  includeObject: string | null,
  now: () => number,
): ((event: JsonObject) => JsonObject) => {
  let headersSent = false;
  return (event) => {
    if (!PRINTED_EVENTS.has(event.type) || !isJsonObject(event.object)) return event;
    const table = tableOf(event.object, printer, includeObject, now());
    const first = !headersSent;
    headersSent = true;
    return { ...event, object: first ? table : { ...table, columnDefinitions: null } };
  };
};
