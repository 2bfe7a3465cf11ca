import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkEdges,
  checkTable,
  findCycles,
  importsOf,
  layerOf,
  parseLayerTable,
  resolveImport,
  RULES,
  type Edge,
  type Violation,
} from './support/layers.js';

/**
 * The layer rules of docs/architecture.md ("Layers"), checked on every import under src/: the table there is the
 * only statement of them, so the documentation cannot drift from the code.
 */
const repo = path.resolve(import.meta.dirname, '..');
const sources = (dir: string): string[] =>
  fs.readdirSync(path.join(repo, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.(ts|mts|cts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });

const exists = (file: string) => fs.existsSync(path.join(repo, file));

function graphOf(files: readonly string[], read: (file: string) => string, fileExists: (file: string) => boolean): Edge[] {
  return files.flatMap((from) =>
    importsOf(from, read(from)).flatMap(({ specifier, typeOnly, line }) => {
      const to = resolveImport(from, specifier, fileExists);
      return to === null ? [] : [{ from, to, typeOnly, line }];
    }),
  );
}

const show = (violations: readonly Violation[]) => violations.map((v) => `${v.from}:${v.line} → ${v.to}: ${v.message}`);

describe('the layers of docs/architecture.md, on src/', () => {
  const rows = parseLayerTable(fs.readFileSync(path.join(repo, 'docs/architecture.md'), 'utf8'));
  const files = sources('src');
  const edges = graphOf(files, (file) => fs.readFileSync(path.join(repo, file), 'utf8'), exists);
  const violations = checkEdges(rows, edges);

  it('the table names folders, files and entry files that exist, each once', () => {
    expect(checkTable(rows, exists)).toEqual([]);
  });

  it(RULES.layer, () => {
    expect(files.filter((file) => layerOf(rows, file) === null)).toEqual([]);
    expect(show(violations.filter((v) => v.rule === RULES.layer))).toEqual([]);
  });

  for (const rule of [RULES.edge, RULES.types, RULES.entry]) {
    it(rule, () => {
      expect(show(violations.filter((v) => v.rule === rule))).toEqual([]);
    });
  }

  it(RULES.cycle, () => {
    expect(findCycles(edges).map((cycle) => cycle.join(' → '))).toEqual([]);
  });
});

describe('the layer checker, on made-up sources', () => {
  const TABLE = [
    '## Layers',
    '',
    '| folder | may import | entry files |',
    '|---|---|---|',
    '| `*.ts` | `domain/`, `store/`, `http/` | `main.ts` |',
    '| `domain/` | — | any |',
    '| `store/` | `domain/` | `index.ts` |',
    '| `http/` | `domain/`, `store/` (types) | any |',
    '',
  ].join('\n');
  const rows = parseLayerTable(TABLE);
  const check = (sourcesByFile: Record<string, string>) => {
    const files = Object.keys(sourcesByFile);
    const edges = graphOf(files, (file) => sourcesByFile[file]!, (file) => file in sourcesByFile);
    return { edges, violations: checkEdges(rows, edges), cycles: findCycles(edges) };
  };

  it('reads the table: rows, "(types)" and entry files', () => {
    expect(rows).toEqual([
      { name: '*.ts', mayImport: [{ layer: 'domain/', typesOnly: false }, { layer: 'store/', typesOnly: false }, { layer: 'http/', typesOnly: false }], entries: ['main.ts'] },
      { name: 'domain/', mayImport: [], entries: 'any' },
      { name: 'store/', mayImport: [{ layer: 'domain/', typesOnly: false }], entries: ['index.ts'] },
      { name: 'http/', mayImport: [{ layer: 'domain/', typesOnly: false }, { layer: 'store/', typesOnly: true }], entries: 'any' },
    ]);
    expect(layerOf(rows, 'src/main.ts')).toBe('*.ts');
    expect(layerOf(rows, 'src/store/sql/x.ts')).toBe('store/');
    expect(layerOf(rows, 'src/workers/x.ts')).toBeNull();
  });

  it('finds imports of every form: value, type-only, re-export, import(), import type in a type, and skips packages', () => {
    const { edges } = check({
      'src/http/a.ts': [
        "import { x } from '../domain/x.js';",
        "import type { Y } from '../store/index.js';",
        "export { z } from './z.js';",
        "export type { W } from './w.js';",
        "type V = import('./v.js').V;",
        "const lazy = () => import('./lazy.js');",
        "import fs from 'node:fs';",
        "const text = \"import { no } from './not-an-import.js'\"; // import './nor-this.js'",
      ].join('\n'),
      'src/domain/x.ts': '',
      'src/store/index.ts': '',
    });
    expect(edges.map(({ to, typeOnly }) => [to, typeOnly])).toEqual([
      ['src/domain/x.ts', false],
      ['src/store/index.ts', true],
      ['src/http/z.js', false],
      ['src/http/w.js', true],
      ['src/http/v.js', true],
      ['src/http/lazy.js', false],
    ]);
  });

  it(`detects a forbidden edge (${RULES.edge})`, () => {
    const { violations } = check({ 'src/domain/x.ts': "import { q } from '../store/index.js';", 'src/store/index.ts': '' });
    expect(violations).toEqual([{ rule: RULES.edge, from: 'src/domain/x.ts', to: 'src/store/index.ts', line: 1, message: 'domain/ may not import store/' }]);
  });

  it(`detects a value import of a layer allowed for its types (${RULES.types})`, () => {
    const { violations } = check({ 'src/http/a.ts': "import type { Q } from '../store/index.js';\nimport { q } from '../store/index.js';", 'src/store/index.ts': '' });
    expect(violations.map((v) => [v.rule, v.line])).toEqual([[RULES.types, 2]]);
  });

  it(`detects an import past a folder's entry files (${RULES.entry}) and a file in no row (${RULES.layer})`, () => {
    const { violations } = check({ 'src/main.ts': "import './store/inner.js';\nimport './workers/w.js';", 'src/store/inner.ts': '', 'src/workers/w.ts': '' });
    expect(violations.map((v) => [v.rule, v.to])).toEqual([
      [RULES.entry, 'src/store/inner.ts'],
      [RULES.layer, 'src/workers/w.ts'],
    ]);
  });

  it(`detects a cycle, type-only imports included, and reports its path (${RULES.cycle})`, () => {
    const { cycles, violations } = check({
      'src/http/a.ts': "import { b } from './b.js';",
      'src/http/b.ts': "import type { C } from './c.js';",
      'src/http/c.ts': "export { a } from './a.js';",
      'src/domain/self.ts': "import type { S } from './self.js';",
      'src/domain/leaf.ts': '',
    });
    expect(violations).toEqual([]);
    expect(cycles).toEqual([
      ['src/domain/self.ts', 'src/domain/self.ts'],
      ['src/http/a.ts', 'src/http/b.ts', 'src/http/c.ts', 'src/http/a.ts'],
    ]);
  });

  it('finds what the table gets wrong', () => {
    const wrong = parseLayerTable(TABLE.replace('`store/` (types)', '`web/`').replace('`index.ts`', '`missing.ts`'));
    expect(checkTable(wrong, (file) => ['src/domain', 'src/store', 'src/http', 'src/main.ts'].includes(file))).toEqual([
      'store/: entry file missing.ts does not exist',
      'http/ may import web/, which has no row',
    ]);
  });
});
