/**
 * Undo steps (stop a child, drop a database, remove a directory), run newest first. Each step runs at most
 * once, whether the run ends normally, throws, or is interrupted.
 */
export class Cleanup {
  private readonly steps: Array<() => Promise<void>> = [];

  /** Registers `step`; the returned function runs it now and unregisters it. */
  add(step: () => Promise<void>): () => Promise<void> {
    let done = false;
    const once = async () => {
      if (done) return;
      done = true;
      await step();
    };
    this.steps.push(once);
    return once;
  }

  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        process.stderr.write(`cleanup step failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  }
}
