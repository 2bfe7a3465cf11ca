import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { UNSTORABLE } from '../domain/text.js';


/**
 * The path of the first value (depth first, in document order) that `matches`, or of the first object key that
 * `keyMatches`; null if none. Iterative, with each path shared by its children, so a deep value costs its size.
 */
export function findPath(root: unknown, matches: (value: unknown) => boolean, keyMatches: (key: string) => boolean = () => false): string[] | null {
  type Node = { value: unknown; parent: Node | null; name: string };
  const pathTo = (node: Node, last?: string) => {
    const parts = last === undefined ? [] : [last];
    for (let at: Node | null = node; at?.parent; at = at.parent) parts.push(at.name);
    return parts.reverse();
  };
  const stack: Node[] = [{ value: root, parent: null, name: '' }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (matches(node.value)) return pathTo(node);
    if (node.value === null || typeof node.value !== 'object') continue;
    const entries = Array.isArray(node.value) ? node.value.map((child, i) => [String(i), child] as const) : Object.entries(node.value);
    for (const [key] of entries) if (!Array.isArray(node.value) && keyMatches(key)) return pathTo(node, key);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], parent: node, name: entries[i]![0] });
  }
  return null;
}

/** The dotted path of the first string (or object key) in `value` that PostgreSQL cannot store, or null. */
export const unstorableStringPath = (value: unknown): string[] | null =>
  findPath(value, (v) => typeof v === 'string' && UNSTORABLE.test(v), (key) => UNSTORABLE.test(key));

/**
 * One gate for every route, ahead of schema validation: a string PostgreSQL cannot hold, in the body or the
 * query, is a 400 naming the parameter, never a failed query (500) or a silently altered value. Path
 * parameters are ids, each checked against its exact format before any query; a malformed one gets the
 * answer the contract gives it (400 invalid_payment_intent_id, 404 event_not_found, …), NUL or not.
 */
export function refuseUnstorableStrings(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  for (const part of [request.query, request.body]) {
    // Most requests are GETs with no query: nothing to walk.
    if (part === undefined || part === null || (typeof part === 'object' && isEmpty(part))) continue;
    const path = unstorableStringPath(part);
    if (path) {
      // eslint-disable-next-line no-control-regex -- the offending characters are masked in the answer
      const param = path.map((p) => p.replace(/[\u0000\uD800-\uDFFF]/g, '\uFFFD')).join('.') || null;
      return done(
        new DomainError('invalid_request', `${param ?? 'The request'} contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored.`, param),
      );
    }
  }
  done();
}

function isEmpty(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

/**
 * Node keeps the first of two Authorization headers and joins two Idempotency-Key headers with ", ": either
 * way the request would be read differently from what its sender meant, so it is refused.
 */
export function refuseDuplicatedHeaders(request: FastifyRequest, names: readonly string[]): void {
  const raw = request.raw.rawHeaders;
  for (const name of names) {
    const wanted = name.toLowerCase();
    let seen = 0;
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === wanted) seen++;
    if (seen > 1) throw new DomainError('invalid_request', `Send the ${name} header once.`, name);
  }
}
