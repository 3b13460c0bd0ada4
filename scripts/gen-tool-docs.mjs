// Regenerates the README's tool table from the tool declarations (run after `npm run build`).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALL_TOOLS } from '../dist/tools/all-tools.js';
import { replaceToolTable, toolTable } from '../dist/tools/tool-docs.js';

const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
const before = readFileSync(readmePath, 'utf8');
const after = replaceToolTable(before, toolTable(ALL_TOOLS));
if (after !== before) {
  writeFileSync(readmePath, after);
  process.stderr.write('README.md tool table updated\n');
} else {
  process.stderr.write('README.md tool table already up to date\n');
}
