/**
 * The layer rules of docs/architecture.md ("Layers") as code: the imports of every source file read with
 * TypeScript's own parser, each file mapped to its row of the table, each import checked against the row, and
 * the file graph searched for cycles. Pure functions over texts, so test/architecture.test.ts can run them on
 * src/ and on small made-up inputs that must fail.
 */
import path from 'node:path';
import ts from 'typescript';

/** One import of a file: `import`, `import type`, `export … from`, `import()` (as a call or as a type). */
export interface Import {
  specifier: string;
  /** Only types cross it: `import type`, `export type`, or an `import('…')` type. Nothing of the module runs. */
  typeOnly: boolean;
  line: number;
}

export interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
  line: number;
}

/** A row of the table: a folder (`http/`, sub-folders included unless they have rows), a file, or `*.ts`. */
export interface LayerRow {
  /** As the table writes it: `domain/`, `config.ts`, `*.ts` (the root files no other row names). */
  name: string;
  mayImport: ReadonlyArray<{ layer: string; typesOnly: boolean }>;
  /** The files other layers may import (relative to the folder); 'any': every file stands on its own. */
  entries: readonly string[] | 'any';
}

export interface Violation {
  rule: string;
  from: string;
  to: string;
  line: number;
  message: string;
}

export const RULES = {
  layer: 'every source file belongs to a row of the table',
  edge: 'a layer imports only itself and the layers its row names',
  types: 'a layer named "(types)" is imported for its types only',
  entry: 'other layers enter a folder through its entry files only',
  cycle: 'no import cycle between files, type-only imports included',
} as const;

/** Every import of a TypeScript source, found by walking its syntax tree (strings and comments are never read as imports). */
export function importsOf(fileName: string, text: string): Import[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    if (!specifier || !ts.isStringLiteralLike(specifier)) throw new Error(`${fileName}:${line}: an import whose module is not a string literal cannot be checked`);
    found.push({ specifier: specifier.text, typeOnly, line });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node, node.moduleSpecifier, node.importClause?.isTypeOnly ?? false);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) add(node, node.moduleSpecifier, node.isTypeOnly);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node, node.moduleReference.expression, node.isTypeOnly);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0], false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal, true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The file a relative import names (`./x.js` is `./x.ts` when that exists, as NodeNext resolves it for tsc), or null
 * for a package. Paths are relative to the repository, with forward slashes.
 */
export function resolveImport(from: string, specifier: string, exists: (file: string) => boolean): string | null {
  if (!specifier.startsWith('.')) return null;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const typescript = target.replace(/\.js$/, '.ts');
  return typescript !== target && exists(typescript) ? typescript : target;
}

/** The rows of the first table after the "## Layers" heading (columns: folder | may import | entry files). */
export function parseLayerTable(markdown: string): LayerRow[] {
  const lines = markdown.split('\n');
  const heading = lines.findIndex((line) => /^##\s+Layers\s*$/.test(line));
  if (heading < 0) throw new Error('no "## Layers" section');
  const start = lines.findIndex((line, index) => index > heading && line.startsWith('|'));
  const next = lines.findIndex((line, index) => index > heading && line.startsWith('## '));
  if (start < 0 || (next >= 0 && next < start)) throw new Error('the Layers section has no table');
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  const table = lines.slice(start, end < 0 ? lines.length : end);
  const cells = (line: string) => line.split('|').slice(1, -1).map((cell) => cell.trim());
  const header = cells(table[0]!).map((cell) => cell.toLowerCase());
  if (header.length !== 3 || !header[0]!.includes('folder') || !header[1]!.includes('may import') || !header[2]!.includes('entry')) {
    throw new Error(`the Layers table's columns are "folder | may import | entry files", not "${header.join(' | ')}"`);
  }
  const code = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
  return table.slice(2).map((line) => {
    const [folder, may, entries] = cells(line) as [string, string, string];
    const name = code(folder)[0];
    if (name === undefined) throw new Error(`a Layers row names no folder: ${line}`);
    return {
      name,
      mayImport: [...may.matchAll(/`([^`]+)`(\s*\(types\))?/g)].map((match) => ({ layer: match[1]!, typesOnly: match[2] !== undefined })),
      entries: /^any\b/.test(entries) ? 'any' : code(entries),
    };
  });
}

const ROOT = '*.ts';

/** The row a file belongs to: its own file row, else the deepest folder row holding it, else `*.ts` for a root file. */
export function layerOf(rows: readonly LayerRow[], file: string, root = 'src'): string | null {
  const relative = path.posix.relative(root, file);
  if (relative.startsWith('..')) return null;
  let best: string | null = null;
  for (const { name } of rows) {
    const holds = name.endsWith('/') ? relative.startsWith(name) : name === relative;
    if (holds && (best === null || name.length > best.length)) best = name;
  }
  if (best === null && !relative.includes('/') && rows.some((row) => row.name === ROOT)) return ROOT;
  return best;
}

/** Whether `file` may be imported from other layers: an entry file of its folder row, or anything of an 'any' or file row. */
function isEntry(row: LayerRow, file: string, root: string): boolean {
  if (row.entries === 'any' || !(row.name.endsWith('/') || row.name === ROOT)) return true;
  return row.entries.includes(path.posix.relative(row.name === ROOT ? root : path.posix.join(root, row.name), file));
}

/** Every edge that breaks the table: a file with no row, a layer not named, a value import of a "(types)" layer, a file that is no entry. */
export function checkEdges(rows: readonly LayerRow[], edges: readonly Edge[], root = 'src'): Violation[] {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const violations: Violation[] = [];
  for (const edge of edges) {
    const from = layerOf(rows, edge.from, root);
    const to = layerOf(rows, edge.to, root);
    const at = { from: edge.from, to: edge.to, line: edge.line };
    if (from === null || to === null) {
      violations.push({ rule: RULES.layer, ...at, message: `${from === null ? edge.from : edge.to} is in no row of the table` });
      continue;
    }
    if (from === to) continue;
    const allowed = byName.get(from)!.mayImport.find((entry) => entry.layer === to);
    if (!allowed) {
      violations.push({ rule: RULES.edge, ...at, message: `${from} may not import ${to}` });
    } else if (allowed.typesOnly && !edge.typeOnly) {
      violations.push({ rule: RULES.types, ...at, message: `${from} may import ${to} for its types only (import type)` });
    } else if (!isEntry(byName.get(to)!, edge.to, root)) {
      violations.push({ rule: RULES.entry, ...at, message: `${edge.to} is not an entry file of ${to}` });
    }
  }
  return violations;
}


/** What the table itself gets wrong: rows or entry files that do not exist, a "may import" naming no row, a row twice. */
export function checkTable(rows: readonly LayerRow[], exists: (file: string) => boolean, root = 'src'): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const row of rows) {
    if (names.has(row.name)) problems.push(`${row.name} has two rows`);
    names.add(row.name);
  }
  for (const row of rows) {
    if (row.name !== ROOT && !exists(path.posix.join(root, row.name).replace(/\/$/, ''))) problems.push(`${row.name}: no such folder or file under ${root}/`);
    for (const { layer } of row.mayImport) if (!names.has(layer)) problems.push(`${row.name} may import ${layer}, which has no row`);
    const folder = row.name === ROOT ? '' : row.name.endsWith('/') ? row.name : null;
    if (row.entries !== 'any' && folder === null) problems.push(`${row.name}: a file row has no entry files of its own ('any')`);
    if (row.entries !== 'any' && folder !== null) {
      for (const entry of row.entries) if (!exists(path.posix.join(root, folder, entry))) problems.push(`${row.name}: entry file ${entry} does not exist`);
    }
  }
  return problems;
}

/**
 * The cycles of the file graph: one per strongly connected component of more than one file (or a file importing
 * itself), each as a path that starts and ends at the same file, so the message shows how to break it.
 */
export function findCycles(edges: readonly Edge[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!graph.has(from)) graph.set(from, []);
    if (!graph.get(from)!.includes(to)) graph.get(from)!.push(to);
  }
  for (const targets of graph.values()) targets.sort();
  const components = stronglyConnected([...graph.keys()].sort(), (file) => graph.get(file) ?? []);
  return components
    .filter((component) => component.length > 1 || (graph.get(component[0]!) ?? []).includes(component[0]!))
    .map((component) => cycleThrough(component, (file) => graph.get(file) ?? []))
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Tarjan's algorithm, iteratively (no recursion depth limit on a long chain of imports). */
function stronglyConnected(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; child: number }> = [{ node: start, child: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const children = next(frame.node);
      if (frame.child < children.length) {
        const child = children[frame.child++]!;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1]!.node, Math.min(low.get(work[work.length - 1]!.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let node: string;
        do {
          node = stack.pop()!;
          onStack.delete(node);
          component.push(node);
        } while (node !== frame.node);
        components.push(component.sort());
      }
    }
  }
  return components;
}

/** The shortest cycle from the component's first file back to it, by a breadth-first search inside the component. */
function cycleThrough(component: readonly string[], next: (node: string) => readonly string[]): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const child of next(node)) {
      if (!inside.has(child)) continue;
      if (child === start) {
        const cycle = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = parent.get(at)) cycle.splice(1, 0, at);
        return [...cycle, start];
      }
      if (!parent.has(child)) {
        parent.set(child, node);
        queue.push(child);
      }
    }
  }
  throw new Error(`no cycle through ${start}`);
}
