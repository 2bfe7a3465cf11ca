import type { EvmPayoutDriver } from '../../providers/chains/evm-payout-driver.js';
import { withoutEndpoint } from '../../providers/chains/rpc-errors.js';
import type { Database } from '../../store/database.js';
import { claimGaps, markFilled, recordBroadcast, recordFiller, type Signed } from '../../store/evm-payouts.js';
import type { ChainHeights } from './heights.js';

/**
 * Fills the network's nonce gaps: a nonce released (nothing was signed at it) that no payout took within
 * `gapFillAfterSeconds`, while a later nonce waits behind it, gets a zero-value self-transfer at the market fee
 * (the operator's cost), sent again until the chain has used the nonce. Answers how many gaps the chain has filled;
 * its failures never name the endpoint.
 */
export async function fillGaps(
  db: Database,
  driver: EvmPayoutDriver,
  heights: ChainHeights,
  network: string,
  options: { gapFillAfterSeconds: number; rebroadcastAfterSeconds: number },
): Promise<number> {
  try {
    const gaps = await claimGaps(
      db,
      { network, from: driver.wallet },
      { graceSeconds: options.gapFillAfterSeconds, rebroadcastSeconds: options.rebroadcastAfterSeconds },
    );
    if (gaps.length === 0) return 0;
    const chainId = await driver.checkChain(network);
    const height = await heights.head(network);
    const used = await driver.nonceAt(network, driver.wallet, height);
    const sendAgain = async (nonceId: string, signed: Signed) => {
      // A node that has it, or has mined it, refuses, which is no failure.
      await driver.broadcast(network, signed.raw);
      await recordBroadcast(db, nonceId, signed.txHash);
    };
    let filled = 0;
    for (const gap of gaps) {
      if (BigInt(gap.nonce) < used) {
        await markFilled(db, gap.id);
        filled++;
      } else if (gap.raw === null) {
        const fees = await driver.feesAt(network, height);
        const signed: Signed = { ...(await driver.signSelfTransfer({ chainId, nonce: BigInt(gap.nonce), fees })), purpose: 'filler' };
        if (await recordFiller(db, gap.id, signed)) await sendAgain(gap.id, signed);
      } else if (gap.rebroadcast_due) {
        await sendAgain(gap.id, { raw: gap.raw, txHash: gap.tx_hash!, purpose: 'filler' });
      }
    }
    return filled;
  } catch (error) {
    throw withoutEndpoint(error);
  }
}
