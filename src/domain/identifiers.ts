import { DomainError } from './errors.js';

/** The longest identifier (external_ref), in Unicode code points of its NFC form, as PostgreSQL's length() counts. */
export const MAX_IDENTIFIER = 255;

/**
 * An `external_ref` as the service stores and looks it up: NFC, 1 to 255 code points, nothing invisible. Only
 * `externalRef()` makes one, so no store function can be reached with a ref that skipped the rule.
 */
export type ExternalRef = string & { readonly __identifier: 'external_ref' };

/**
 * Characters an identifier refuses, each a way for two refs that look the same to name two balances: controls
 * (TAB, CR, LF…), format characters (zero-width space, BOM, every bidi control such as U+202E), line and
 * paragraph separators, spaces other than U+0020, other invisible (default-ignorable) characters, private-use
 * characters (no agreed look), unpaired surrogates and unassigned code points (whose normalization a later
 * Unicode version may change, so a stored ref could stop matching itself).
 */
const REFUSED: readonly [RegExp, string][] = [
  [/\p{Cc}/u, 'a control character'],
  [/\p{Cf}/u, 'a format character (invisible, or a bidi control)'],
  [/[\p{Zl}\p{Zp}]/u, 'a line or paragraph separator'],
  [/(?! )\p{Zs}/u, 'a space other than U+0020'],
  [/\p{Default_Ignorable_Code_Point}/u, 'an invisible (default-ignorable) character'],
  [/\p{Co}/u, 'a private-use character'],
  [/\p{Cs}/u, 'an unpaired UTF-16 surrogate'],
  [/\p{Cn}/u, 'a code point Unicode has not assigned'],
];
const ANY_REFUSED = new RegExp(REFUSED.map(([pattern]) => pattern.source).join('|'), 'u');

export const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Whether one character (code point) is of a refused class: what the dashboard shows by its code point. */
export const isRefusedCharacter = (char: string) => ANY_REFUSED.test(char);

/** What is wrong with `value` (already NFC) as an identifier, or null: the first refused character, by position. */
export function identifierProblem(value: string): string | null {
  const chars = [...value];
  if (chars.length === 0 || chars.length > MAX_IDENTIFIER) return `must be 1 to ${MAX_IDENTIFIER} characters`;
  const at = chars.findIndex(isRefusedCharacter);
  if (at >= 0) {
    const [, kind] = REFUSED.find(([pattern]) => pattern.test(chars[at]!))!;
    return `contains ${codePoint(chars[at]!)}, ${kind}, at character ${at + 1}`;
  }
  if (chars[0] === ' ' || chars.at(-1) === ' ') return 'starts or ends with a space';
  return null;
}

/**
 * An external_ref as sent (a body field, a query parameter or a path segment), normalized to NFC so that
 * canonically equal texts (é as one code point or as e + U+0301) name one end user; a ref that breaks the
 * rule is a 400 naming `field`. Visible lookalikes (fullwidth, Cyrillic) are text and pass: the dashboard marks them.
 */
export function externalRef(value: string, field = 'external_ref'): ExternalRef {
  const normalized = value.normalize('NFC');
  const problem = identifierProblem(normalized);
  if (problem) {
    throw new DomainError(
      'invalid_request',
      `${field} ${problem}. Identifiers are NFC text without controls, invisible or bidi characters, or edge spaces (docs/conventions.md#identifiers).`,
      field,
    );
  }
  return normalized as ExternalRef;
}

/**
 * The identifier in printable ASCII: every other character (and a space at either end) as `\u{…}`, a backslash
 * doubled. Two different identifiers never escape alike, so lookalikes differ here; `unescapeIdentifier` reverses it.
 */
export function escapeIdentifier(value: string): string {
  const chars = [...value];
  return chars
    .map((char, i) => {
      if (char === '\\') return '\\\\';
      const edgeSpace = char === ' ' && (i === 0 || i === chars.length - 1);
      return char >= ' ' && char <= '~' && !edgeSpace ? char : `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`;
    })
    .join('');
}

/** The identifier an `escapeIdentifier` text stands for; a text with no escapes is itself. Null when an escape is not a code point. */
export function unescapeIdentifier(text: string): string | null {
  let valid = true;
  const out = text.replace(/\\\\|\\u\{([0-9A-Fa-f]{1,6})\}/g, (escape, hex: string | undefined) => {
    if (hex === undefined) return '\\';
    const code = parseInt(hex, 16);
    if (code > 0x10ffff) valid = false;
    return valid ? String.fromCodePoint(code) : '';
  });
  return valid ? out : null;
}

/** A list's optional `external_ref` filter under the same rule: undefined when none was given. */
export const externalRefFilter = (value: string | undefined): ExternalRef | undefined => (value === undefined ? undefined : externalRef(value));

/**
 * The stored refs a search text may mean: as typed, trimmed (a pasted ref keeps no stray space, but a stored one
 * may end in one), unescaped (the `\u{…}` form the dashboard shows), each as is (a row stored before the rule) and
 * in NFC (how refs are stored now).
 */
export function searchedRefs(text: string): string[] {
  const typed = [text, text.trim()];
  const unescaped = typed.map(unescapeIdentifier).filter((ref): ref is string => ref !== null);
  return [...new Set([...typed, ...unescaped].flatMap((ref) => [ref, ref.normalize('NFC')]))].filter((ref) => ref.length > 0);
}

/** What a ref stored before the rule breaks of it, or null: not NFC (then its NFC form is another ref), or the rule. */
export function storedRefProblem(stored: string): string | null {
  const normalized = stored.normalize('NFC');
  if (normalized !== stored) return `is not NFC: as the API now reads it, it is ${escapeIdentifier(normalized)}`;
  return identifierProblem(stored);
}

/** What a ref shows to a reader: NFC, without the characters the rule refuses, without edge spaces. */
export function visibleForm(value: string): string {
  return [...value.normalize('NFC')].filter((char) => !isRefusedCharacter(char)).join('').trim();
}
