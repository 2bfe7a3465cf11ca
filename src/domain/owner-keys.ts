/** An owner of live Solana deposit addresses the operator imported: its base58 address and the hardened path of its key. */
export interface OwnerKey {
  owner: string;
  derivationPath: string;
}
