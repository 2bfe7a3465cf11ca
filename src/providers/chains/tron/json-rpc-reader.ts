import { rpcChainReader, type EvmChainReader, type EvmTransfer } from '../evm-rpc.js';
import { evmHexFromTronAddress, tronAddressFromEvmHex } from './address.js';
import type { TransactionKind } from './http-api.js';

/**
 * A Tron node's Ethereum-compatible JSON-RPC (`/jsonrpc`), read as an EVM chain: blocks, TRC-20 `Transfer` logs
 * (the ERC-20 shape) and receipts are served the same way. What differs is converted here, at the edge, so the
 * watcher sees Tron as wallets and explorers show it:
 * - addresses: the node speaks `0x` + 20 bytes; the service stores and matches `T…` base58, case-sensitive;
 * - transaction ids: `0x` + 64 hex on the wire, the bare 64 hex explorers (Tronscan) and wallets show as `tx_hash`;
 * - a native transfer moved TRX only if it is a TransferContract (`kindOf`, from the HTTP API): JSON-RPC shows a
 *   TRC-10 transfer the same way.
 */
export function tronChainReader(url: string, kindOf: TransactionKind, headers?: Readonly<Record<string, string>>): EvmChainReader {
  const rpc = rpcChainReader(url, headers);
  return {
    chainId: rpc.chainId,
    head: rpc.head,
    async block(number) {
      const block = await rpc.block(number);
      return block && { ...block, nativeTransfers: block.nativeTransfers.map(asTron) };
    },
    tokenTransfers: async (tokens, blocks) => (await rpc.tokenTransfers(tokens.map(evmHexFromTronAddress), blocks)).map(asTron),
    succeeded: async (txId) => (await kindOf(txId)) === 'TransferContract' && rpc.succeeded(`0x${txId}`),
    normalize: (address) => address,
  };
}

function asTron(transfer: EvmTransfer): EvmTransfer {
  return {
    ...transfer,
    txHash: transfer.txHash.replace(/^0x/, ''),
    token: transfer.token && tronAddressFromEvmHex(transfer.token),
    from: tronAddressFromEvmHex(transfer.from),
    to: tronAddressFromEvmHex(transfer.to),
  };
}
