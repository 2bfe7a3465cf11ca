#!/usr/bin/env node
// The CLI runs compiled, as the server does (`npm run build`, run by `npm ci` / `npm install`, writes dist/).
await import('../dist/cli/main.js');
