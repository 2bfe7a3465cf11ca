/** One on-chain address format: how raw account bytes become the string a wallet expects, and back-checking it. */
export interface AddressCodec {
  /** How many raw bytes `encode` takes; the dispatcher enforces it so each codec can assume it. */
  readonly byteLength: number;
  encode(bytes: Uint8Array): string;
  /** Decodes and checks everything the format can check (checksum, length, prefix); never throws. */
  isValid(address: string): boolean;
}
