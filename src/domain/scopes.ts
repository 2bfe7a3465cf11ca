export const SCOPES = [
  'intents:read',
  'intents:write',
  'addresses:read',
  'addresses:write',
  'balances:read',
  'transactions:read',
  'payouts:read',
  'payouts:write',
  'events:read',
  'events:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
