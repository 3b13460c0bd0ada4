// Writes the tool reference (docs/tools.md) from the built tool declarations and TOOLSETS (run after
// `npm run build`; `npm run docs:tools` does both). `--check` writes nothing and exits 1 when the
// checked-in file differs, for CI scripts that do not run the contract test.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALL_TOOLS } from '../dist/tools/all-tools.js';
import { labTools } from '../dist/lab/lab-tools.js';
import { GuestFileSystems } from '../dist/lab/guest-files.js';
import { TOOL_REFERENCE_PATH, toolReferenceFile } from '../dist/mcp/listing/tool-docs.js';

const path = fileURLToPath(new URL(`../${TOOL_REFERENCE_PATH}`, import.meta.url));
let before = '';
try {
  before = readFileSync(path, 'utf8');
} catch {
  // no file yet: written below
}
const after = toolReferenceFile([...ALL_TOOLS, ...labTools(GuestFileSystems.fromTopology())]);
if (after === before) {
  process.stderr.write(`${TOOL_REFERENCE_PATH} already up to date\n`);
} else if (process.argv.includes('--check')) {
  process.stderr.write(`${TOOL_REFERENCE_PATH} differs from the declarations: run npm run docs:tools\n`);
  process.exitCode = 1;
} else {
  writeFileSync(path, after);
  process.stderr.write(`${TOOL_REFERENCE_PATH} updated\n`);
}
