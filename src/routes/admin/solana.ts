import { Type } from 'typebox';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { CodeText, errorResponses, RequestText } from '../../http/schemas.js';
import { importOwnerKeys } from '../../use-cases/solana-owners.js';

/** As many keys as one request may carry: a year of addresses for most deployments. */
export const MAX_KEYS = 10_000;
/**
 * This route's body limit, above the API's 256 KiB (about 2,600 keys): an entry is at most 206 bytes as compact
 * JSON (a 44-character key, a 128-character path), so 10,000 of them fit even indented, with room to spare.
 */
export const OWNER_KEYS_BODY_LIMIT = 4 * 1024 * 1024;

const OwnerKeys = Type.Object(
  {
    network: CodeText('A Solana network of the catalog, e.g. `solana`.'),
    keys: Type.Array(
      Type.Object(
        {
          // 32 bytes are at most 44 base58 characters.
          owner: RequestText(44, { description: 'The base58 ed25519 public key (32 bytes, on the curve).' }),
          derivation_path: RequestText(128, { description: "The hardened SLIP-10 path it was derived at, e.g. m/44'/501'/0'/0'." }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_KEYS },
    ),
  },
  { additionalProperties: false, title: 'SolanaOwnerKeys' },
);

const OwnerImport = Type.Object(
  {
    object: Type.Literal('solana_owner_import'),
    network: Type.String(),
    received: Type.Integer({ description: 'Keys in the request, one given twice counted once.' }),
    imported: Type.Integer({ description: 'Keys new to the pool; the others were there already and are left as they were.' }),
    free: Type.Integer({ description: 'Keys of the network not handed out yet, after the import.' }),
  },
  { title: 'SolanaOwnerImport' },
);

export function adminSolanaRoutes(app: App, { db, catalog }: AppContext): void {
  app.post(
    '/solana/owner-keys',
    {
      bodyLimit: OWNER_KEYS_BODY_LIMIT,
      schema: {
        summary: "Add owner public keys to a Solana network's deposit address pool",
        description:
          'Every live Solana deposit address is one of these keys, handed out once (ed25519 keys cannot be derived from a public key, ' +
          'so the operator derives them offline from a seed and imports the public halves; never a private key). Importing a key ' +
          'again changes nothing. One invalid entry refuses the whole request, naming each problem. At most 10,000 keys (a body of ' +
          'up to 4 MiB). See docs/live-solana.md.',
        tags: ['operator'],
        body: OwnerKeys,
        response: { 200: OwnerImport, ...errorResponses(400, 401, 413, 422) },
      },
    },
    async (request) => ({ object: 'solana_owner_import' as const, ...(await importOwnerKeys(db, catalog, request.body.network, request.body.keys)) }),
  );
}
