/** How deep a request body may nest objects and arrays: this API's deepest body is 3 levels; 32 is plenty. */
export const MAX_JSON_DEPTH = 32;

export type ShapeProblem = { kind: 'too_deep' } | { kind: 'duplicate_key'; path: string };

interface Frame {
  /** The keys seen so far in an object; null for an array. */
  keys: Set<string> | null;
  /** Where the frame sits in its parent: the parent's key, or its index. */
  name: string;
  /** The object's latest key, or the array's current index. */
  lastKey: string;
  index: number;
  expectingKey: boolean;
}

/**
 * One pass over a JSON text, before it is parsed: nesting deeper than `maxDepth` (answered at the first level too
 * deep, so a hostile body costs no more than its length), and an object key given twice (JSON.parse keeps the
 * last, a signing layer or WAF may read the first: the two would disagree on what was asked). Iterative, linear
 * in the text. Answers the first problem, or null; the text's syntax is JSON.parse's to judge.
 */
export function jsonShapeProblem(text: string, maxDepth = MAX_JSON_DEPTH): ShapeProblem | null {
  const stack: Frame[] = [];
  let duplicate: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
      const top = stack.at(-1);
      if (top?.keys && top.expectingKey) {
        top.expectingKey = false;
        const key = decodeKey(text.slice(start, i + 1));
        if (duplicate === null && top.keys.has(key)) duplicate = pathOf(stack, key);
        top.keys.add(key);
        top.lastKey = key;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth) return { kind: 'too_deep' };
      const parent = stack.at(-1);
      const name = parent ? (parent.keys ? parent.lastKey : String(parent.index)) : '';
      stack.push({ keys: c === 0x7b ? new Set() : null, name, lastKey: '', index: 0, expectingKey: c === 0x7b });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top?.keys) top.expectingKey = true;
      else if (top) top.index++;
    }
  }
  return duplicate === null ? null : { kind: 'duplicate_key', path: duplicate };
}

function decodeKey(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal;
  }
}

/** The dotted path of `key` in the innermost object: the keys and indexes of the levels around it. */
const pathOf = (stack: Frame[], key: string) => [...stack.slice(1).map((frame) => frame.name), key].join('.');
