import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const markdownIn = (dir: string) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.md')).map((f) => path.join(dir, f));
const DOCS = ['README.md', 'CONTRIBUTING.md', 'BENCHMARKS.md', ...markdownIn('docs'), ...markdownIn('bench/history')];

/** The lines of a Markdown file outside fenced code blocks, with their numbers. */
function prose(file: string): { line: string; number: number }[] {
  let fenced = false;
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return [];
      }
      return fenced ? [] : [{ line, number: i + 1 }];
    });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces turned into hyphens; repeats get -1, -2… */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { line } of prose(file)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const base = text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** Every relative link target (and image source) of a file, outside code, with where it stands. */
function relativeLinks(file: string): { target: string; at: string }[] {
  return prose(file).flatMap(({ line, number }) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)|(?:src|href)="([^"]+)"/g)]
      .map((match) => (match[1] ?? match[2])!)
      .filter((target) => !/^[a-z]+:/i.test(target))
      .map((target) => ({ target, at: `${path.relative(root, file)}:${number}` })),
  );
}

describe('links between the docs', () => {
  it('every relative link of the README, CONTRIBUTING, BENCHMARKS, docs/ and bench/history/ names a file that exists, and a heading of it when it names an anchor', () => {
    const broken: string[] = [];
    for (const file of DOCS.map((doc) => path.join(root, doc))) {
      for (const { target, at } of relativeLinks(file)) {
        const [pathPart, anchor] = target.split('#');
        const destination = pathPart ? path.resolve(path.dirname(file), decodeURIComponent(pathPart)) : file;
        if (!fs.existsSync(destination)) broken.push(`${at}: ${target} (no such file)`);
        else if (anchor !== undefined && destination.endsWith('.md') && !anchorsOf(destination).has(anchor)) broken.push(`${at}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
