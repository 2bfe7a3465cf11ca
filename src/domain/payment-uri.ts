import { Decimal } from './money.js';

export interface PaymentTarget {
  /** The network's EIP-155 chain id (the catalog's `chain_id`): EIP-681 URIs name the chain. */
  chainId: number | null;
  addressFormat: 'evm' | 'tron' | 'solana' | 'bitcoin';
  address: string;
  /** Token contract (EVM) or mint (Solana); null for the network's native asset. */
  tokenContract: string | null;
  decimals: number;
  /** What to pay there; null leaves the amount to the payer (a wallet then asks). */
  amount: Decimal | null;
}

/**
 * What a wallet scanning the QR code should open: EIP-681 on EVM networks, BIP-21 on Bitcoin, Solana Pay on
 * Solana; the bare address where no such scheme exists (Tron) or the chain is unknown.
 */
export function paymentUri(target: PaymentTarget): string {
  const { address, amount, tokenContract } = target;
  switch (target.addressFormat) {
    case 'evm': {
      const { chainId } = target;
      if (chainId === null) return address;
      const units = amount && amount.times(new Decimal(10).pow(target.decimals)).toFixed(0);
      if (tokenContract === null) return `ethereum:${address}@${chainId}${units ? `?value=${units}` : ''}`;
      return `ethereum:${tokenContract}@${chainId}/transfer?address=${address}${units ? `&uint256=${units}` : ''}`;
    }
    case 'bitcoin':
      return `bitcoin:${address}${amount ? `?amount=${amount.toFixed()}` : ''}`;
    case 'solana': {
      const query = [amount && `amount=${amount.toFixed()}`, tokenContract && `spl-token=${tokenContract}`].filter(Boolean).join('&');
      return `solana:${address}${query ? `?${query}` : ''}`;
    }
    case 'tron':
      return address;
  }
}
