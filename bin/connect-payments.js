#!/usr/bin/env node
// The CLI runs from TypeScript source, as the server does (`tsx src/main.ts`), so there is no build to keep in step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
