/** One on-chain address format: how raw account bytes become the string wallets expect, and how to check such a string. */
export interface AddressCodec {
  /** How many raw bytes `encode` takes; the dispatcher enforces it so each codec can assume it. */
  readonly byteLength: number;
  encode(bytes: Uint8Array): string;
  /** Decodes and checks everything the format can check (checksum, length, prefix); never throws. */
  isValid(address: string): boolean;
}
