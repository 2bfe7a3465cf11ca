/**
 * What the signer has let each network spend today (fees at their cap, and top-ups), against the policy's
 * max_fees_per_day: the bound on what an API host that holds the channel secret can make it spend. Counted in this
 * process (a restart starts the day's count again: restarting the signer is an operator's act, not the API host's).
 */
export class FeeBudget {
  private readonly spent = new Map<string, { day: string; wei: bigint }>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** Counts `wei` against the network's budget for the UTC day, unless that would pass `perDay`: then false, nothing counted. */
  take(network: string, wei: bigint, perDay: bigint): boolean {
    const day = this.now().toISOString().slice(0, 10);
    const today = this.spent.get(network);
    const already = today?.day === day ? today.wei : 0n;
    if (already + wei > perDay) return false;
    this.spent.set(network, { day, wei: already + wei });
    return true;
  }
}
