/** One way to write a stateful part (docs/decisions/0032-classes-and-factories.md): what the lint step refuses. */
import { describe, expect, it } from 'vitest';
import { findingsOf } from '../../tools/lint/stateful-parts.js';

const root = '/repo';
const findings = (file: string, text: string): ReadonlyArray<string> => findingsOf(`${root}/${file}`, text, root);

describe('tools/lint/stateful-parts', () => {
  it('refuses an exported factory over its own state whose callers get an anonymous object type', () => {
    const counter = 'export const counter = () => {\n  let n = 0;\n  return { next: () => ++n };\n};\n';
    expect(findings('app/x.ts', counter)).toEqual([
      'app/x.ts:1: counter is a stateful factory without a named interface: declare its return type as one',
    ]);
    const seen =
      'export function seen() {\n  const keys = new Set<string>();\n  return { add(k: string) { keys.add(k); } };\n}';
    expect(findings('adapters/y.ts', seen)).toHaveLength(1);
  });

  it('accepts the factory that names its interface, a local closure, a stateless factory and a class outside core', () => {
    const named = 'export const counter = (): Counter => {\n  let n = 0;\n  return { next: () => ++n };\n};\n';
    expect(findings('app/x.ts', named)).toEqual([]);
    const local = 'const counter = () => {\n  let n = 0;\n  return { next: () => ++n };\n};\n';
    expect(findings('app/x.ts', local)).toEqual([]);
    const stateless =
      'export const adder = (k: number) => {\n  const step = k;\n  return { add: (n: number) => n + step };\n};';
    expect(findings('app/x.ts', stateless)).toEqual([]);
    expect(findings('app/x.ts', 'export class Queue { private items: string[] = []; }')).toEqual([]);
  });

  it('refuses a class in core, an Error subclass aside', () => {
    expect(findings('core/z.ts', 'export class Cache { private m = new Map(); }')).toEqual([
      'core/z.ts:1: class Cache in core: the core keeps no state',
    ]);
    expect(findings('core/z.ts', 'class Malformed extends Error {}')).toEqual([]);
  });
});
