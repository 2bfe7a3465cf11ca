import fs from 'node:fs';
import protobuf from 'protobufjs';

/*
 * Tron's protocol messages, from the committed tron.proto (read next to this file; the build copies it to dist).
 * keepCase is required: without it protobufjs camel-cases `owner_address` and the like, and then silently
 * drops the snake_case fields of the objects it is given, which signs a different transaction.
 */
const root = protobuf.parse(fs.readFileSync(new URL('./tron.proto', import.meta.url), 'utf8'), { keepCase: true }).root;

export const SignedTransactionMessage = root.lookupType('protocol.SignedTransaction');
export const TransactionRawMessage = root.lookupType('protocol.Transaction.raw');
export const TransferContractMessage = root.lookupType('protocol.TransferContract');
export const TriggerSmartContractMessage = root.lookupType('protocol.TriggerSmartContract');
/** The contract type numbers of Transaction.Contract.ContractType. */
export const ContractType = root.lookupEnum('protocol.Transaction.Contract.ContractType').values as Record<'TransferContract' | 'TriggerSmartContract', number>;
