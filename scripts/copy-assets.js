// The compiled code reads data files next to itself (catalog, price sheet, fee table, SQL migrations):
// copy every file of src/ that is not TypeScript into dist/, keeping the layout.
import fs from 'node:fs';

fs.cpSync('src', 'dist', { recursive: true, filter: (from) => fs.statSync(from).isDirectory() || !from.endsWith('.ts') });
