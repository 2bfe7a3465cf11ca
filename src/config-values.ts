/** Parsers of single settings: each names the variable in its error, and never echoes a value that may be secret. */

export function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  const value = integer(name, raw, fallback);
  if (value === 0) throw new Error(`${name} must be at least 1, got "${raw}"`);
  return value;
}

export function httpUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  return raw;
}

/** `<prefix><NETWORK>` settings (the catalog code in capitals, `-` as `_`) → network code → the value `parse` makes of it. */
export function perNetwork<T>(env: NodeJS.ProcessEnv, prefix: string, parse: (name: string, raw: string) => T): Record<string, T> {
  const values: Record<string, T> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (name.startsWith(prefix) && raw) values[name.slice(prefix.length).toLowerCase().replaceAll('_', '-')] = parse(name, raw);
  }
  return values;
}
