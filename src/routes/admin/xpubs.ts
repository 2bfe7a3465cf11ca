import { Type } from 'typebox';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { errorResponses } from '../../http/schemas.js';
import { claimConfiguredXpub, claimStates, MAX_DERIVATION_INDEX, type ConfiguredXpubs } from '../../use-cases/xpub-claims.js';

const Family = Type.Union([Type.Literal('evm'), Type.Literal('tron')], { description: 'The key family whose addresses derive from the xpub.' });

const ClaimRequest = Type.Object(
  {
    family: Family,
    start_index: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_DERIVATION_INDEX, description: 'The first index this database hands out: past every index another database (the one this backup came from, a copy, another deployment) may have used.' }),
    ),
    first_use: Type.Optional(Type.Boolean({ description: 'true: no database ever handed out this xpub\'s addresses; start at 0. Give this or start_index.' })),
  },
  { additionalProperties: false, title: 'XpubClaimRequest' },
);

const ClaimState = Type.Object(
  {
    object: Type.Literal('xpub_claim'),
    family: Family,
    fingerprint: Type.String({ description: "SHA-256 of the configured xpub's public key and chain code, hex." }),
    claimed: Type.Boolean({ description: 'Whether this database hands out its addresses; when false, live addresses of the family are refused 503.' }),
    claim: Type.Union([
      Type.Object({
        how: Type.Union([Type.Literal('first_use'), Type.Literal('declared'), Type.Literal('adopted')]),
        start_index: Type.Integer(),
        claimed_at: Type.String({ format: 'date-time' }),
      }),
      Type.Null(),
    ]),
    next_index: Type.Integer({ description: 'The next index this database hands out.' }),
  },
  { title: 'XpubClaim' },
);

export function adminXpubRoutes(app: App, { db, liveEvm, liveTron }: AppContext): void {
  const xpubs: ConfiguredXpubs = { evm: liveEvm && { fingerprint: liveEvm.xpub.fingerprint }, tron: liveTron && { fingerprint: liveTron.xpub.fingerprint } };
  const shown = (state: Awaited<ReturnType<typeof claimStates>>[number]) => ({
    object: 'xpub_claim' as const,
    ...state,
    claim: state.claim && { ...state.claim, claimed_at: state.claim.claimed_at.toISOString() },
  });

  app.get(
    '/xpub-claims',
    {
      schema: {
        summary: 'Whether this database hands out the configured xpubs\' addresses, and from which index',
        description: 'One entry per live family configured with an xpub (EVM, Tron). See docs/live-evm.md, "One xpub, one database".',
        tags: ['operator'],
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ClaimState) }), ...errorResponses(401) },
      },
    },
    async () => ({ object: 'list' as const, data: (await claimStates(db, xpubs)).map(shown) }),
  );

  app.post(
    '/xpub-claims',
    {
      schema: {
        summary: "Claim the configured xpub for this database, or move its next index forward",
        description:
          'A database hands out no address of an xpub it has not claimed: another database may already have handed them out. ' +
          'Claimed again with a higher start_index, the next index moves up to it (never down): how a restored backup is moved past ' +
          'what the newer database handed out. See docs/live-evm.md, "One xpub, one database".',
        tags: ['operator'],
        body: ClaimRequest,
        response: { 200: ClaimState, ...errorResponses(400, 401, 422) },
      },
    },
    async (request) => shown(await claimConfiguredXpub(db, xpubs, request.body)),
  );
}
