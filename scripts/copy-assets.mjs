// Copies non-TypeScript files the built server reads at run time (lab TLS material, the
// dashboard's static page, the lab policy) next to the compiled JavaScript in dist/.
import { cpSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const assets = ['lab/tls', 'lab/lab-policy.yaml', 'dashboard/static', 'state/pg/migrations'];
for (const rel of assets) {
  const from = join(root, 'src', rel);
  if (existsSync(from)) cpSync(from, join(root, 'dist', rel), { recursive: true });
}
