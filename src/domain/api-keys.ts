import { createHash, randomInt } from 'node:crypto';

export type KeyMode = 'test' | 'live';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 40 base62 characters ≈ 238 bits of entropy (the contract asks for at least 32 characters). */
const SECRET_LENGTH = 40;
const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/;

export const DEFAULT_RATE_LIMIT_RPS: Record<KeyMode, number> = { test: 25, live: 100 };

export function generateApiKey(mode: KeyMode): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += BASE62[randomInt(BASE62.length)];
  return `sk_${mode}_${secret}`;
}

/** The mode a well-formed key claims, or null when the string cannot be a key at all. */
export function parseApiKey(key: string): KeyMode | null {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as KeyMode) : null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What operators see of a key after creation: enough to recognise it, too little to use it. */
export function keyPrefix(key: string): string {
  return key.slice(0, key.indexOf('_', 3) + 5);
}
