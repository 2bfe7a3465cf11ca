import { Type, type Static } from 'typebox';

const Units = (description: string) => Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$', description: `${description} Integer, decimal string.` });

/** What the service sends the signer to sign (POST /v1/evm/sign): amounts in wei as decimal strings. */
export const EvmSignBody = Type.Object(
  {
    network: Type.String({ maxLength: 64 }),
    kind: Type.Union([Type.Literal('sweep'), Type.Literal('top_up')]),
    index: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'The deposit address: m/44\'/60\'/account\'/0/index.' }),
    transaction: Type.Object(
      {
        to: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
        data: Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 2 + 2 * 4096 }),
        value: Units('Wei sent.'),
        gas: Units('Gas limit.'),
        nonce: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
        max_fee_per_gas: Units('Wei.'),
        max_priority_fee_per_gas: Units('Wei.'),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type EvmSignBody = Static<typeof EvmSignBody>;

/** The signer's answer: the signed transaction, its hash, and who signed it. */
export interface EvmSigned {
  raw: `0x${string}`;
  hash: `0x${string}`;
  from: `0x${string}`;
}

/** A refusal or failure, in the shape of the service's own errors. */
export interface SignerError {
  error: { code: 'unauthenticated' | 'invalid_request' | 'refused' | 'signer_error'; message: string };
}
