/**
 * Reads of one kind that arrive while the database is busy with others, answered by one statement: the requests
 * that queue behind `inFlight` running statements go out together when one finishes, up to `maxBatch` at a time.
 * A read that finds fewer statements running goes out at once, alone: coalescing adds no wait to a quiet service.
 *
 * No answer is older than its request: a statement is sent after every request it answers had arrived, so its
 * snapshot holds every write committed before any of them, whichever instance wrote it. Nothing is kept between
 * statements: this is not a cache.
 *
 * A statement that has not answered after `stallMs` stops counting as running: its own readers still wait for it, as
 * a read on a stuck connection always did, but it no longer holds back the reads queued behind it, which go out on
 * other connections of the pool.
 */
export class CoalescedReads<Key, Row> {
  private readonly queue: { key: Key; settle: (row: Row | null, error?: unknown) => void }[] = [];
  private running = 0;

  /** `read` answers each key in its position, with null for a key that finds nothing. */
  constructor(
    private readonly read: (keys: Key[]) => Promise<(Row | null)[]>,
    private readonly inFlight: number,
    private readonly maxBatch: number,
    private readonly stallMs: number,
  ) {}

  load(key: Key): Promise<Row | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, settle: (row, error) => (error === undefined ? resolve(row) : reject(error)) });
      if (this.running < this.inFlight) this.send();
    });
  }

  private send(): void {
    const batch = this.queue.splice(0, this.maxBatch);
    this.running++;
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      this.running--;
      if (this.queue.length > 0 && this.running < this.inFlight) this.send();
    };
    const stalled = setTimeout(release, this.stallMs);
    stalled.unref();
    // The next statement goes out before this one's readers resume: the database works on it while they answer.
    const finish = (settle: (waiting: (typeof batch)[number], i: number) => void) => {
      clearTimeout(stalled);
      release();
      batch.forEach(settle);
    };
    void this.read(batch.map((waiting) => waiting.key)).then(
      (rows) => finish((waiting, i) => waiting.settle(rows[i] ?? null)),
      (error: unknown) => finish((waiting) => waiting.settle(null, error ?? new Error('read failed'))),
    );
  }
}
