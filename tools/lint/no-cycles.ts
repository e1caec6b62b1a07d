/**
 * Lint step: no import cycles among the project's modules (docs/architecture.md: dependencies point
 * inward). Follows relative imports and re-exports (`.js` specifiers resolve to `.ts` sources)
 * and prints every cycle found; exit 1 when there is one.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOTS = ['core', 'adapters', 'app', 'tools', 'bench', 'test'];
const root = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });

// `import … from './x.js'`, `export … from './x.js'`, `import './x.js'` (type-only imports included:
// a type cycle is still a design cycle), across line breaks.
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

const importsOf = (file: string): string[] => {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].flatMap((match) => {
    const target = resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts'));
    return existsSync(target) ? [target] : [];
  });
};

const files = ROOTS.filter((dir) => existsSync(join(root, dir))).flatMap((dir) => sources(join(root, dir)));
const graph = new Map(files.map((file) => [file, importsOf(file)]));

const cycles: string[][] = [];
const state = new Map<string, 'visiting' | 'done'>();
const stack: string[] = [];
const visit = (file: string): void => {
  state.set(file, 'visiting');
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next]);
    else if (state.get(next) === undefined) visit(next);
  }
  stack.pop();
  state.set(file, 'done');
};
for (const file of files) if (state.get(file) === undefined) visit(file);

if (cycles.length > 0) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.map((f) => relative(root, f)).join(' → ')}`);
  console.error(`${cycles.length} import cycle(s): break them by moving the shared part into its own module`);
  process.exit(1);
}
console.log(`no import cycles among ${files.length} modules`);
