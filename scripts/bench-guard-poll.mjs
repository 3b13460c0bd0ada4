// How soon the guard sees a tagged checkpoint the ZVM lists late: the simulated ZVM with a listing
// delay, the real client, pinTaggedCheckpoint at several poll intervals. Prints one line per run.
// Usage: npm run build && node scripts/bench-guard-poll.mjs
import { envSecretSource } from '../dist/core/secrets.js';
import { LabCallLog } from '../dist/lab/call-log.js';
import { GuestFileSystems } from '../dist/lab/guest-files.js';
import { LAB_CREDENTIALS, LAB_ZERTO_SITES } from '../dist/lab/topology.js';
import { LAB_TLS, startLabZvm } from '../dist/lab/zvm/index.js';
import { ZvmClient } from '../dist/zerto/client.js';
import { pinTaggedCheckpoint } from '../dist/zerto/pin-checkpoint.js';
import { withSiteDefaults } from '../dist/zerto/site-config.js';

const site = LAB_ZERTO_SITES.find((s) => s.name === 'lab-zvm');
const callLog = new LabCallLog();
const zvm = await startLabZvm({ site, guests: GuestFileSystems.fromTopology(), credentials: { ...LAB_CREDENTIALS }, callLog, taskDurationMs: 300 });
const client = new ZvmClient({
  site: withSiteDefaults({ name: site.name, url: zvm.url, credentialPrefix: 'B', verifyTls: true, caFile: LAB_TLS.ca }),
  secrets: envSecretSource({ B_USER: LAB_CREDENTIALS.user, B_PASSWORD: LAB_CREDENTIALS.password }),
});
const vpg = { id: 'aaaaaaaa-0000-4000-8000-000000000003', name: 'vpg-windows' };
for (const [pollMs, delayMs] of [[200, 1000], [1000, 2500], [2000, 3000]]) {
  for (let run = 0; run < 3; run++) {
    zvm.behaviour.checkpointDelayMs = delayMs;
    const from = callLog.calls.at(-1)?.seq ?? 0;
    const t0 = Date.now();
    const res = await pinTaggedCheckpoint(client, { vpgs: [vpg], agent: 'bench', action: 'poll', vm: 'win-app-01', changeId: `bench-${pollMs}-${run}`, pollMs, timeoutMs: 30_000 });
    const done = Date.now();
    const cp = zvm.state.listedCheckpoints(vpg.id).find((c) => c.id === res.checkpoints[0].checkpoint_id);
    const calls = callLog.calls.filter((c) => c.seq > from);
    const count = (m) => calls.filter((c) => c.method === m).length;
    console.log(`poll ${pollMs} ms, listing delay ${delayMs} ms: listed -> seen ${done - cp.visibleAt} ms, insert -> confirmed ${done - t0} ms, ` +
      `task polls ${count('GET /v1/tasks/:id')}, list polls ${count('GET /v1/vpgs/:id/checkpoints')}`);
  }
}
await client.close();
await zvm.close();
