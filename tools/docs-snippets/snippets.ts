/**
 * The TypeScript snippets of the documentation (```ts blocks in docs/*.md and README.md), type-checked
 * against the repository's sources as a user would import them (`kreconcile`, `kreconcile/runtime`, …
 * mapped to the sources): one TypeScript program for all of them, nothing written to disk.
 *
 * A snippet is its own module unless marked. Markers are HTML comments (invisible on GitHub) just
 * before the fence:
 *   <!-- snippet: continues -->           the same module as the previous checked snippet of the file
 *   <!-- snippet: context                 hidden code put before the snippet (what the prose says exists)
 *   declare const cluster: Cluster;
 *   -->
 *   <!-- snippet: no-check: <reason> -->  not checked (a fragment or a signature sketch); the reason is required
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export type Snippet = {
  readonly file: string;
  /** 1-based line of the snippet's first code line in `file`. */
  readonly line: number;
  readonly code: string;
  /** Hidden code (a `context` marker), put before `code`. */
  readonly context: string;
  readonly continues: boolean;
  /** Why it is not checked (a `no-check` marker). */
  readonly skip?: string;
};

const FENCE_OPEN = /^```(ts|typescript)\s*$/;
const FENCE_CLOSE = /^```\s*$/;
const MARKER = /^<!--\s*snippet:\s*(no-check|continues|context)\b:?\s*(.*)$/;

type Markers = { context: string; continues: boolean; skip?: string };

/** The markers written since the last code block, or a problem with one (file:line, what to do). */
const readMarker = (
  lines: ReadonlyArray<string>,
  index: number,
  markers: Markers,
  where: string,
): { readonly next: number } => {
  const match = MARKER.exec(lines[index]!.trim())!;
  const [, kind, rest = ''] = match;
  if (kind === 'context') {
    const body: string[] = [];
    const inline = rest.replace(/-->\s*$/, '');
    if (inline.trim() !== '') body.push(inline);
    let next = index;
    if (!rest.trimEnd().endsWith('-->')) {
      next += 1;
      while (next < lines.length && lines[next]!.trim() !== '-->') body.push(lines[next++]!);
      if (next >= lines.length) throw new Error(`${where}: "snippet: context" is not closed by a line "-->"`);
    }
    markers.context += `${body.join('\n')}\n`;
    return { next: next + 1 };
  }
  if (kind === 'continues') markers.continues = true;
  else {
    const reason = rest.replace(/-->\s*$/, '').trim();
    if (reason === '') throw new Error(`${where}: "snippet: no-check" needs a reason: <!-- snippet: no-check: why -->`);
    markers.skip = reason;
  }
  return { next: index + 1 };
};

/** The ```ts blocks of one Markdown text, with the markers before each. */
export const extractSnippets = (markdown: string, file: string): ReadonlyArray<Snippet> => {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  let markers: Markers = { context: '', continues: false };
  let index = 0;
  while (index < lines.length) {
    const text = lines[index]!;
    if (MARKER.test(text.trim())) {
      index = readMarker(lines, index, markers, `${file}:${index + 1}`).next;
    } else if (FENCE_OPEN.test(text.trim())) {
      const start = index + 1;
      let end = start;
      while (end < lines.length && !FENCE_CLOSE.test(lines[end]!.trim())) end += 1;
      if (end >= lines.length) throw new Error(`${file}:${index + 1}: the code block is not closed`);
      snippets.push({ file, line: start + 1, code: lines.slice(start, end).join('\n'), ...markers });
      markers = { context: '', continues: false };
      index = end + 1;
    } else {
      // A fence of another language, or prose: markers apply to the next ts block only if nothing but blank lines come
      // between.
      if (text.trim() !== '') markers = { context: '', continues: false };
      index += 1;
    }
  }
  return snippets;
};

/** One module of snippets: its text and, per line, where that line comes from. */
export type SnippetModule = { readonly name: string; readonly text: string; readonly origins: ReadonlyArray<string> };

/** The checked snippets grouped into modules (a `continues` snippet joins the previous module of its file). */
export const snippetModules = (snippets: ReadonlyArray<Snippet>): ReadonlyArray<SnippetModule> => {
  const modules: Array<{ name: string; file: string; lines: string[]; origins: string[] }> = [];
  for (const snippet of snippets) {
    if (snippet.skip !== undefined) continue;
    const previous = modules.at(-1);
    if (snippet.continues && previous?.file !== snippet.file)
      throw new Error(
        `${snippet.file}:${snippet.line}: "snippet: continues" but no checked snippet before it in the file`,
      );
    const current =
      snippet.continues && previous !== undefined
        ? previous
        : modules[
            modules.push({ name: `${snippet.file}:${snippet.line}`, file: snippet.file, lines: [], origins: [] }) - 1
          ]!;
    for (const line of snippet.context.split('\n').slice(0, -1)) {
      current.lines.push(line);
      current.origins.push(`${snippet.file}:${snippet.line - 1} (its "snippet: context" marker)`);
    }
    snippet.code.split('\n').forEach((line, offset) => {
      current.lines.push(line);
      current.origins.push(`${snippet.file}:${snippet.line + offset}`);
    });
  }
  // `export {}`: every snippet is a module (top-level await, no global name clashes between snippets).
  return modules.map(({ name, lines, origins }) => ({
    name,
    text: `${lines.join('\n')}\nexport {};\n`,
    origins,
  }));
};

/** The Markdown files whose snippets are checked: README.md and docs/*.md. */
export const documentationFiles = (root: string): ReadonlyArray<string> => [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name)),
];

/** The package's entry points as a user imports them, mapped to the sources (package.json "exports"). */
const entryPoints = (root: string): Record<string, string[]> => ({
  kreconcile: [join(root, 'core/index.ts')],
  'kreconcile/runtime': [join(root, 'app/runtime/index.ts')],
  'kreconcile/testing': [join(root, 'app/testing/index.ts')],
  'kreconcile/kubernetes': [join(root, 'adapters/kubernetes/index.ts')],
});

/** Type errors of the modules, each as `file:line: message` (empty when every snippet type-checks). */
export const typeCheck = (root: string, modules: ReadonlyArray<SnippetModule>): ReadonlyArray<string> => {
  const configFile = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  const options: ts.CompilerOptions = { ...parsed.options, noEmit: true, paths: entryPoints(root) };
  // Virtual files beside the sources, so `node_modules` resolves as it does for the repository's own code.
  const virtual = new Map(modules.map((module, index) => [join(root, `.docs-snippet-${index}.ts`), module]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, shouldCreate) => {
    const module = virtual.get(fileName);
    return module === undefined
      ? getSourceFile(fileName, language, onError, shouldCreate)
      : ts.createSourceFile(fileName, module.text, language, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(fileName) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtual.get(fileName)?.text ?? readFile(fileName);
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
    const file = diagnostic.file;
    if (file === undefined || diagnostic.start === undefined) return `(program): TS${diagnostic.code} ${message}`;
    const { line } = file.getLineAndCharacterOfPosition(diagnostic.start);
    const module = virtual.get(file.fileName);
    const where =
      module === undefined
        ? `${relative(root, file.fileName)}:${line + 1}`
        : (module.origins[line] ?? `${module.name} (end)`);
    return `${where}: TS${diagnostic.code} ${message}`;
  });
};

/** Every snippet of the documentation type-checked: the errors, `file:line: TSnnnn message`. */
export const checkDocumentationSnippets = (root: string): ReadonlyArray<string> => {
  const snippets = documentationFiles(root).flatMap((path) =>
    extractSnippets(readFileSync(path, 'utf8'), relative(root, path)),
  );
  return typeCheck(root, snippetModules(snippets));
};
