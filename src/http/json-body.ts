import type { FastifyInstance } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { MAX_EXACT_SIGNIFICANT_DIGITS, significantDigits } from '../domain/money.js';
import { jsonShapeProblem, MAX_JSON_DEPTH } from './json-shape.js';
import { findPath } from './request-guards.js';

/** In valid JSON, strings are skipped whole, so every other match is a number literal. */
const TOKENS = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/** Stands in for the inexact literal while its path is looked for (a JSON string, so no control characters). */
const SENTINEL = 'connect-payments:inexact-number:7f3c9a';

function isInexact(literal: string): boolean {
  const value = Number(literal);
  const digits = significantDigits(literal);
  return digits > MAX_EXACT_SIGNIFICANT_DIGITS || !Number.isFinite(value) || (value === 0 && digits > 0);
}

/** Where the first inexact literal sits: it is replaced by a marker string and the marker is looked for. */
function pathOf(text: string, index: number, length: number): string | null {
  const marked = JSON.parse(`${text.slice(0, index)}"${SENTINEL}"${text.slice(index + length)}`) as unknown;
  return findPath(marked, (value) => value === SENTINEL)?.join('.') || null;
}

/**
 * The JSON body parser: nesting deeper than MAX_JSON_DEPTH refused before anything else, Fastify's own parser
 * (prototype-poisoning protection included), a key given twice refused, then a refusal of number
 * literals that a double cannot carry exactly (more than 15 significant digits, or out of range). JSON.parse
 * would round them without a word, and an amount must never change on its way in.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    const text = raw.toString();
    const shape = jsonShapeProblem(text);
    if (shape?.kind === 'too_deep') {
      return done(new DomainError('invalid_request', `The body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`, null), undefined);
    }
    parse(request, text, (error, body) => {
      if (error) return done(error, undefined);
      if (shape?.kind === 'duplicate_key') {
        return done(new DomainError('invalid_request', `${shape.path} is given twice in the body; send each key once.`, shape.path), undefined);
      }
      for (const match of text.matchAll(TOKENS)) {
        if (match[0].startsWith('"') || !isInexact(match[0])) continue;
        const param = pathOf(text, match.index, match[0].length);
        return done(
          new DomainError(
            'invalid_request',
            `${param ?? 'The body'} is a JSON number with more than ${MAX_EXACT_SIGNIFICANT_DIGITS} significant digits (or out of range), ` +
              'which JSON numbers do not carry exactly. Send it as a decimal string.',
            param,
          ),
          undefined,
        );
      }
      done(null, body);
    });
  });
}
