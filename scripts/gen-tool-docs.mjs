// Regenerates the README's tool reference (the toolset table and the tool table) from the tool
// declarations and tools/toolsets.ts TOOLSETS (run after `npm run build`).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALL_TOOLS } from '../dist/tools/all-tools.js';
import { labTools } from '../dist/lab/lab-tools.js';
import { GuestFileSystems } from '../dist/lab/guest-files.js';
import { replaceToolTable, toolReference } from '../dist/tools/tool-docs.js';

const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
const before = readFileSync(readmePath, 'utf8');
const after = replaceToolTable(before, toolReference([...ALL_TOOLS, ...labTools(GuestFileSystems.fromTopology())]));
if (after !== before) {
  writeFileSync(readmePath, after);
  process.stderr.write('README.md tool table updated\n');
} else {
  process.stderr.write('README.md tool table already up to date\n');
}
