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

/**
 * Folder level (issue 40): within each part, its folders form a graph (A → B when a file under A
 * imports one under B; files directly in the part are its root and left out), and that graph has no
 * cycle either, so folders layer. Strongly connected components (Tarjan) name every folder in a cycle.
 */
const PARTS = ['core', 'app', 'adapters', 'adapters/memory', 'app/runtime', 'app/cli'];

/**
 * Folder cycles still to break, each named with why it is allowed for now. A cycle not listed fails;
 * a listed one that is gone fails too, so the list only shrinks.
 */
const KNOWN_FOLDER_CYCLES: ReadonlyMap<string, string> = new Map<string, string>([]);

const folderOf = (base: string, file: string): string | undefined => {
  const steps = relative(base, file).split('/');
  return steps.length > 1 && !steps[0]?.startsWith('..') ? steps[0] : undefined;
};

const folderEdges = (part: string): Map<string, Set<string>> => {
  const base = join(root, part);
  const edges = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(base, file);
    if (from === undefined || file.endsWith('.arbitrary.ts')) continue;
    for (const target of targets) {
      const to = folderOf(base, target);
      if (to === undefined || to === from) continue;
      edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
};

const stronglyConnected = (edges: Map<string, Set<string>>): string[][] => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const order: string[] = [];
  const found: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    order.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) connect(next);
      if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = order.pop(); member !== undefined; member = member === node ? undefined : order.pop()) {
      onStack.delete(member);
      component.push(member);
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) connect(node);
  return found;
};

const folderCycles = PARTS.filter((part) => existsSync(join(root, part))).flatMap((part) =>
  stronglyConnected(folderEdges(part)).map((members) => `${part}: {${members.join(', ')}}`),
);
const newFolderCycles = folderCycles.filter((cycle) => !KNOWN_FOLDER_CYCLES.has(cycle));
const brokenKnown = [...KNOWN_FOLDER_CYCLES.keys()].filter((cycle) => !folderCycles.includes(cycle));

if (cycles.length > 0 || newFolderCycles.length > 0 || brokenKnown.length > 0) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.map((f) => relative(root, f)).join(' → ')}`);
  for (const cycle of newFolderCycles) console.error(`folder cycle: ${cycle}`);
  for (const cycle of brokenKnown) console.error(`folder cycle gone (remove it from KNOWN_FOLDER_CYCLES): ${cycle}`);
  console.error(
    'break import cycles by moving the shared part into its own module, folder cycles by moving it down a layer',
  );
  process.exit(1);
}
console.log(
  `no import cycles among ${files.length} modules; folders layer in ${PARTS.join(', ')} (known: ${[...KNOWN_FOLDER_CYCLES.keys()].join('; ') || 'none'})`,
);
