/** Resolves at the first SIGTERM or SIGINT: how the long-running verbs (worker, signer) are told to stop. */
export const stopSignal = () =>
  new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
