import ipaddr from 'ipaddr.js';
import { Type, type Static } from 'typebox';
import type { LockoutState } from '../../http/auth-failures.js';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { DomainError } from '../../domain/errors.js';
import { errorResponses } from '../../http/schemas.js';

const AuthLockout = Type.Object(
  {
    object: Type.Literal('auth_lockout'),
    address: Type.String({ description: 'The client address, as the lockout warning in the log names it.' }),
    surfaces: Type.Array(
      Type.Object({
        surface: Type.Union([Type.Literal('partner'), Type.Literal('operator'), Type.Literal('dashboard')]),
        failures: Type.Integer({ description: 'Failed authentications counted in the current one-minute window.' }),
        locked: Type.Boolean({ description: 'Whether failing attempts from the address on this surface are answered 429.' }),
        retry_after_seconds: Type.Integer({ description: 'Seconds until the window, and any lockout, ends; 0 when nothing is counted.' }),
      }),
    ),
  },
  { title: 'AuthLockout' },
);

const AddressParams = Type.Object({ address: Type.String({ maxLength: 64, description: 'An IPv4 or IPv6 address.' }) });

function checkedAddress(address: string): string {
  if (!ipaddr.isValid(address)) throw new DomainError('invalid_request', `"${address}" is not an IPv4 or IPv6 address.`, 'address');
  return address;
}

const present = (address: string, states: LockoutState[]): Static<typeof AuthLockout> => ({
  object: 'auth_lockout',
  address,
  surfaces: states.map((s) => ({ surface: s.surface, failures: s.failures, locked: s.locked, retry_after_seconds: s.retryAfterSeconds })),
});

const ON_THIS_INSTANCE =
  'With the rate limits in Redis (CONNECT_RATE_LIMIT_STORE=redis) every instance shares these counters; otherwise they live ' +
  'in the memory of each instance and this answers for the one that serves the request. See docs/authentication.md.';

export function adminAuthLockoutRoutes(app: App, { lockouts }: AppContext): void {
  app.get(
    '/auth-lockouts/:address',
    {
      schema: {
        summary: "A client address's failed authentications per surface",
        description: `Failures counted in the current one-minute window on the partner API, the operator API and dashboard sign-in, and whether each surface has locked the address out. ${ON_THIS_INSTANCE}`,
        tags: ['operator'],
        params: AddressParams,
        response: { 200: AuthLockout, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const address = checkedAddress(request.params.address);
      return present(address, await lockouts.states(address));
    },
  );

  app.delete(
    '/auth-lockouts/:address',
    {
      schema: {
        summary: "Clear a client address's failed authentications",
        description: `Forgets the address's failures on every surface, which ends its lockouts at once; answers the cleared state. ${ON_THIS_INSTANCE}`,
        tags: ['operator'],
        params: AddressParams,
        response: { 200: AuthLockout, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const address = checkedAddress(request.params.address);
      await lockouts.clear(address);
      request.log.info({ address }, `authentication lockouts cleared for ${address}`);
      return present(address, await lockouts.states(address));
    },
  );
}
