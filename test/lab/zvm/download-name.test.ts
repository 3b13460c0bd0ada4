// The simulated ZVM names a download in Content-Disposition the way RFC 6266 asks: an ASCII
// `filename=` fallback and the real name in RFC 5987 `filename*`, so a name outside Latin-1
// is neither a 500 (Node refuses such header bytes) nor mojibake; the client reads `filename*`.

import { afterEach, describe, expect, it } from 'vitest';
import { dispositionFileName } from '../../../src/zerto/download-payload.js';
import { startLab, type LabHandle } from '../../zerto/support/lab.js';

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

describe('download file names', () => {
  it.each([false, true])('serves a non-Latin-1 name with an ASCII fallback and filename* (TLS %s)', async (tls) => {
    lab = await startLab({ tls });
    lab.zvm.state.downloads.set('dl-1', { id: 'dl-1', sessionId: 's', bytes: Buffer.from('x'), fileName: '配置-ключ "v2".conf', contentType: 'application/octet-stream' });
    const { response } = await lab.client.fetchDownload('v1/downloads/dl-1', { maxBytes: 1024 });
    expect(response.status).toBe(200);
    const header = String(response.headers['content-disposition']);
    // The fallback keeps the ASCII of the name and marks the rest, never bytes cut from UTF-16 units.
    expect(header).toMatch(/^attachment; filename="__-____ _v2_\.conf"; filename\*=UTF-8''/);
    expect(dispositionFileName(header)).toBe('配置-ключ "v2".conf');
  });
});
