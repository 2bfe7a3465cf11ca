import { runCli } from './run.js';

// An exit code rather than process.exit(): output still being flushed to a pipe is not cut short.
process.exitCode = await runCli(process.argv.slice(2), process);
