// Contract checks over every declared tool: schema snapshots (one file per tool; under CI=true a
// missing or stale snapshot fails, since vitest writes none there; refresh with
// `npx vitest run test/contract -u`), the README tool table, names and annotations.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/tools/all-tools.js';
import { listed } from '../../src/tools/registry.js';
import { TOOLS_END, TOOLS_START, toolTable } from '../../src/tools/tool-docs.js';
import { listDownstreamTool } from '../../src/tools/downstream-tools.js';
import { DownstreamManager } from '../../src/downstream/manager.js';
import { silentLogger } from '../support/harness.js';

describe('tool declarations', () => {
  it.each(ALL_TOOLS.map((t) => [t.name, t] as const))('%s matches its schema snapshot', async (name, tool) => {
    await expect(`${JSON.stringify(listed(tool), null, 2)}\n`).toMatchFileSnapshot(`./__toolsnaps__/${name}.json`);
  });

  it('list_downstream (registered with the gateway) matches its schema snapshot', async () => {
    const tool = listDownstreamTool(new DownstreamManager([], { logger: silentLogger, taken: new Set() }));
    await expect(`${JSON.stringify(listed(tool), null, 2)}
`).toMatchFileSnapshot('./__toolsnaps__/list_downstream.json');
  });

  it('every snapshot file belongs to a declared tool (a removed or renamed tool leaves none behind)', () => {
    const files = readdirSync(new URL('./__toolsnaps__/', import.meta.url)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
    expect(files).toEqual([...ALL_TOOLS.map((t) => t.name), 'list_downstream'].sort());
  });

  it('every tool names its toolset', () => {
    const toolsets = ['vsphere_read', 'vsphere_infra', 'vsphere_monitor', 'vsphere_change', 'vsphere_destructive', 'zerto', 'zerto_catalog', 'flr', 'lifecycle', 'lab', 'downstream', 'hooks'];
    for (const t of ALL_TOOLS) expect(toolsets, t.name).toContain(t.toolset);
  });

  it('names are unique and valid MCP tool names', () => {
    const names = ALL_TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9_]{2,63}$/);
  });

  it('every non-read tool takes exactly one target (target "all" is denied) or takes none and acts on a Zerto or server object', () => {
    for (const t of ALL_TOOLS.filter((x) => x.category !== 'read')) {
      const args = Object.keys((t.input as unknown as { shape: Record<string, unknown> }).shape);
      if (args.includes('target')) expect(t.singleTarget, `${t.name} takes a target but not exactly one`).toBe(true);
      // Without a target argument it cannot act on a vSphere target.
      else expect(t.toolset, `${t.name} takes no target`).not.toMatch(/^vsphere_/);
    }
  });

  it('no read tool is destructive and no change is read-only, in the annotations a client sees', () => {
    for (const t of ALL_TOOLS) {
      if (t.category === 'read') expect(listed(t).annotations.destructiveHint, t.name).toBe(false);
      else expect(listed(t).annotations.readOnlyHint, t.name).toBe(false);
    }
  });

  it('the README tool table is generated from the declarations (run npm run docs:tools)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf(TOOLS_START);
    const end = readme.indexOf(TOOLS_END);
    expect(start).toBeGreaterThan(-1);
    expect(readme.slice(start + TOOLS_START.length, end).trim()).toBe(toolTable(ALL_TOOLS).trim());
  });
});
