// The one-line installs of docs/clients.md, decoded as the clients decode them: each VS Code link is a
// vscode:mcp/install URL, URL-encoded inside the redirect's `url` (its JSON encoded once more),
// each Cursor link carries the config as base64; the claude / codex lines and the Claude Code JSON
// name the same two configurations (the lab, then ~/.zerto-rewind/), with "alwaysLoad": true.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLIENTS = readFileSync(fileURLToPath(new URL('../../docs/clients.md', import.meta.url)), 'utf8');

const LAB = { command: 'npx', args: ['-y', 'zerto-rewind-mcp', '--lab'] };
const ENV = {
  ZERTO_REWIND_CONFIG: '${userHome}/.zerto-rewind/config.json', TARGETS_FILE: 'targets.yaml',
  POLICY_FILE: 'policy.yaml', ZERTO_REWIND_CREDENTIALS_FILE: 'credentials.json',
};
const REAL = { command: 'npx', args: ['-y', 'zerto-rewind-mcp'], env: ENV };

function links(prefix: string): URL[] {
  const escaped = prefix.replace(/[.?/]/g, (c) => `\\${c}`);
  return [...CLIENTS.matchAll(new RegExp(`\\]\\((${escaped}[^)\\s]+)\\)`, 'g'))].map((m) => new URL(m[1]!));
}

/** What VS Code receives: the redirect's url parameter, then the install URL's query as JSON. */
function vscodeInstall(link: URL): { scheme: string; config: Record<string, unknown> } {
  const inner = link.searchParams.get('url')!;
  const m = /^(vscode|vscode-insiders):mcp\/install\?(.+)$/.exec(inner);
  expect(m, inner).not.toBeNull();
  return { scheme: m![1]!, config: JSON.parse(decodeURIComponent(m![2]!)) as Record<string, unknown> };
}

describe('docs/clients.md install links', () => {
  it('VS Code and VS Code Insiders links install the lab, then the real configuration', () => {
    const found = links('https://insiders.vscode.dev/redirect?url=').map(vscodeInstall);
    expect(found).toEqual([
      { scheme: 'vscode', config: { name: 'zerto-rewind-lab', ...LAB } },
      { scheme: 'vscode', config: { name: 'zerto-rewind', ...REAL } },
      { scheme: 'vscode-insiders', config: { name: 'zerto-rewind-lab', ...LAB } },
      { scheme: 'vscode-insiders', config: { name: 'zerto-rewind', ...REAL } },
    ]);
  });

  it('Cursor links carry the same configurations as base64', () => {
    const found = links('https://cursor.com/en/install-mcp?').map((u) => ({
      name: u.searchParams.get('name'),
      config: JSON.parse(Buffer.from(u.searchParams.get('config')!, 'base64').toString('utf8')) as unknown,
    }));
    expect(found).toEqual([{ name: 'zerto-rewind-lab', config: LAB }, { name: 'zerto-rewind', config: REAL }]);
  });

  it('the claude and codex lines add the lab first, then the same environment', () => {
    for (const cli of ['claude', 'codex']) {
      const lines = CLIENTS.split('\n').filter((l) => l.startsWith(`${cli} mcp add `));
      expect(lines, cli).toHaveLength(2);
      expect(lines[0]).toBe(`${cli} mcp add zerto-rewind-lab -- npx -y zerto-rewind-mcp --lab`);
      const env = Object.fromEntries([...lines[1]!.matchAll(/--env (\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      expect(env).toEqual({ ...ENV, ZERTO_REWIND_CONFIG: '$HOME/.zerto-rewind/config.json' });
      // claude takes its options before the server's name, codex after it.
      const shape = cli === 'claude' ? /^claude mcp add (--env \S+ )+zerto-rewind -- npx -y zerto-rewind-mcp$/ : /^codex mcp add zerto-rewind( --env \S+)+ -- npx -y zerto-rewind-mcp$/;
      expect(lines[1]).toMatch(shape);
    }
  });

  it('the Claude Code entry loads the tools up front and sets a timeout', () => {
    const block = /```json\n(\{\n {2}"mcpServers": \{\n {4}"zerto-rewind": \{\n {6}"type": "stdio"[\s\S]*?)```/.exec(CLIENTS)?.[1];
    expect(block).toBeTruthy();
    const entry = (JSON.parse(block!) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers['zerto-rewind']!;
    expect(entry).toMatchObject({ command: 'npx', args: REAL.args, alwaysLoad: true });
    expect(Object.keys(entry.env as object).sort()).toEqual(Object.keys(ENV).sort());
    expect(entry.timeout).toBeGreaterThanOrEqual(120_000);
  });

  it('the hook settings in docs/clients.md are deploy/claude-code-hooks.json', () => {
    const shipped = JSON.parse(readFileSync(fileURLToPath(new URL('../../deploy/claude-code-hooks.json', import.meta.url)), 'utf8')) as unknown;
    const block = /```json\n(\{\n {2}"hooks"[\s\S]*?)```/.exec(CLIENTS)?.[1];
    expect(JSON.parse(block!)).toEqual(shipped);
  });
});
