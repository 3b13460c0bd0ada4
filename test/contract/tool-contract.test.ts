// Contract checks over every declared tool: schema snapshots (one file per tool; under CI=true a
// missing or stale snapshot fails, since vitest writes none there; refresh with
// `npx vitest run test/contract -u`), the generated tool reference (docs/tools.md), names and
// annotations.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/tools/all-tools.js';
import { listed } from '../../src/mcp/listing/registry.js';
import { TOOL_REFERENCE_PATH, toolReferenceFile } from '../../src/mcp/listing/tool-docs.js';
import { TOOLSETS, toolsetOf } from '../../src/tools/toolsets.js';
import { labTools } from '../../src/lab/lab-tools.js';
import { GuestFileSystems } from '../../src/lab/guest-files.js';
import { listDownstreamTool } from '../../src/tools/gateway/downstream-tools.js';
import { DownstreamManager } from '../../src/downstream/manager.js';
import { silentLogger } from '../support/harness.js';

/** What docs/tools.md describes: every declaration, the lab's included. */
const DOCUMENTED = [...ALL_TOOLS, ...labTools(GuestFileSystems.fromTopology())];

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

  it('every toolset in TOOLSETS holds a declared tool (the lab\'s and the gateway\'s list_downstream included)', () => {
    const declared = [...ALL_TOOLS, ...labTools(GuestFileSystems.fromTopology()), listDownstreamTool(new DownstreamManager([], { logger: silentLogger, taken: new Set() }))];
    const used = new Set(declared.map((t) => t.toolset));
    expect(TOOLSETS.map((t) => t.id).filter((id) => !used.has(id))).toEqual([]);
    // Discovery is in every selection, whatever its declaration names.
    expect(toolsetOf(declared.find((t) => t.name === 'list_targets')!)).toBe('discovery');
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

  it('docs/tools.md is the reference the declarations generate', () => {
    const checkedIn = readFileSync(new URL(`../../${TOOL_REFERENCE_PATH}`, import.meta.url), 'utf8');
    // A plain equality, so the failure names the fix rather than only showing a diff.
    expect(checkedIn === toolReferenceFile(DOCUMENTED), `${TOOL_REFERENCE_PATH} is stale: run npm run docs:tools`).toBe(true);
  });

  it('the reference changes with any declaration it lists, so a stale file cannot pass', () => {
    const edited = DOCUMENTED.map((t, i) => (i === ALL_TOOLS.length - 1 ? { ...t, description: `Edited. ${t.description}` } : t));
    expect(toolReferenceFile(edited)).not.toBe(toolReferenceFile(DOCUMENTED));
    expect(toolReferenceFile(DOCUMENTED.slice(1))).not.toBe(toolReferenceFile(DOCUMENTED));
  });
});
