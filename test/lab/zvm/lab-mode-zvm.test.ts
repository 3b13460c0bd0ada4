// What `--lab` starts on the Zerto side: every served ZVM, the client-credentials grant Zerto's
// own SDK uses (its client id and secret in the banner), and one journal per VPG across sites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envSecretSource } from '../../../src/core/secrets.js';
import { LAB_CA_FILE } from '../../../src/lab/lab-mode.js';
import { startLab, type TestLab } from '../../../src/lab/testing/index.js';
import { LAB_ZERTO_CLIENT } from '../../../src/lab/topology.js';
import { ZvmClient } from '../../../src/zerto/client.js';
import { withSiteDefaults } from '../../../src/zerto/site-config.js';
import { tempDir } from '../../support/harness.js';

let lab: TestLab;
beforeAll(async () => {
  lab = await startLab({ stateDir: tempDir('zr-labzvm-'), env: {}, zvmTaskMs: 50 });
});
afterAll(async () => lab?.stop());

describe('--lab Zerto side', () => {
  it('serves both on-prem ZVMs and the cloud one, and prints the client-credentials id and secret', () => {
    expect([...lab.zvms.keys()].sort()).toEqual(['lab-zca-azure', 'lab-zvm', 'lab-zvm-dr']);
    const banner = lab.config.notices.join('\n');
    expect(banner).toContain(`client_id ${LAB_ZERTO_CLIENT.id}`);
    expect(banner).toContain(`client_secret ${LAB_ZERTO_CLIENT.secret}`);
  });

  it('the product client logs in with client_credentials and lists the same checkpoints at both sites of a VPG', async () => {
    const site = lab.config.app.sites.find((s) => s.name === 'lab-zvm-dr')!;
    const client = new ZvmClient({
      site: withSiteDefaults({ name: site.name, url: site.url, credentialPrefix: 'DR_API', clientId: LAB_ZERTO_CLIENT.id, verifyTls: true, caFile: LAB_CA_FILE }),
      secrets: envSecretSource({ DR_API_CLIENT_SECRET: LAB_ZERTO_CLIENT.secret }),
    });
    try {
      const ctx = await client.siteContext();
      expect(ctx.local.name).toBe('lab-zvm-dr');
      expect(lab.callLog.find('zvm:lab-zvm-dr', 'POST /auth/realms/zerto/protocol/openid-connect/token')).toHaveLength(1);
      const erp = 'aaaaaaaa-0000-4000-8000-000000000004';
      const atDr = (await client.listCheckpoints(erp)).map((c) => c.CheckpointIdentifier);
      const atMain = lab.zvms.get('lab-zvm')!.state.listedCheckpoints(erp).map((c) => c.id);
      expect(atDr.length).toBeGreaterThan(0);
      expect(atMain.slice(0, atDr.length)).toEqual(atDr);
    } finally {
      await client.close();
    }
  });
});
