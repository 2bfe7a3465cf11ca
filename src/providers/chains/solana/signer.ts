import fs from 'node:fs';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';

const KEY_FORM = 'a JSON array of 64 bytes (the secret key, then the public key), as solana-keygen writes it';

/**
 * The Solana hot wallet from its key as the Solana CLI keeps it. kit checks that the public half matches the secret
 * half, so a key file whose halves belong to two wallets is refused at start rather than signing unverifiable
 * transactions. The key is never echoed, not even when malformed.
 */
export async function solanaSigner(key: string): Promise<KeyPairSigner> {
  let bytes: unknown;
  try {
    bytes = JSON.parse(key);
  } catch {
    bytes = null;
  }
  if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new Error(`The Solana signer key must be ${KEY_FORM}`);
  }
  try {
    return await createKeyPairSignerFromBytes(new Uint8Array(bytes as number[]));
  } catch {
    // kit's own error is not kept as the cause: it could quote the key's bytes.
    throw new Error(`The Solana signer key's public half is not the public key of its secret half: it must be ${KEY_FORM}`);
  }
}

export const solanaSignerFromFile = (file: string) => solanaSigner(fs.readFileSync(file, 'utf8'));
