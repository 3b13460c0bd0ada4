// Child process for the shared-state-folder test: adds `count` entries named `<prefix>-<n>` to the
// catalog state file through the built MutatingCatalog, as a second server process would.
import { MutatingCatalog } from '../../dist/core/catalog.js';
import { FileCatalogStore } from '../../dist/state/files/catalog-file-store.js';

const [path, prefix, count] = process.argv.slice(2);
const catalog = new MutatingCatalog([], [], new FileCatalogStore(path));
for (let i = 0; i < Number(count); i++) await catalog.add({ tool: `${prefix}/tool-${i}`, vm_arg: 'host', platform: 'any', note: '' });
process.stdout.write('done\n');
