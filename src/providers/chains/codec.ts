/** One on-chain address format: how raw account bytes become the string wallets expect, and how to check such a string. */
export interface AddressCodec {
  /** How many raw bytes `encode` takes; the dispatcher enforces it so each codec can assume it. */
  readonly byteLength: number;
  encode(bytes: Uint8Array): string;
  /**
   * Whether the string is an address in the exact form this service mints for deposits. Decodes and checks
   * everything the format can check (checksum, length, prefix); never throws.
   */
  isValid(address: string): boolean;
  /**
   * Whether funds may be sent to the string: every standard form of the format that the network can pay, which is
   * wider than what `isValid` accepts, minus addresses whose funds are known to be lost (see each codec). Checks
   * the same way as `isValid` and never throws. Nothing is trimmed or normalized: surrounding whitespace makes
   * the address invalid, so the caller pays exactly the string it was given.
   */
  isValidDestination(address: string): boolean;
}
