// The tool reference, docs/tools.md, generated from the declarations and the TOOLSETS table: the
// toolsets (ids, descriptions, whether the default serves them, their tools and counts) and then
// the tools by surface. scripts/gen-tool-docs.mjs (`npm run docs:tools`) writes it, and a contract
// test fails when the checked-in file and the declarations disagree. Deterministic: the order is
// TOOLSETS' and the declarations'.
import { isTwoPhase, type AnyTool } from '../../tools/define.js';
import { surfaceOf, toolsetOf, TOOLSETS } from '../../tools/toolsets.js';

/** Where the generated reference lives, relative to the repository root. */
export const TOOL_REFERENCE_PATH = 'docs/tools.md';

const SURFACE_TITLES: Record<string, string> = {
  vsphere: 'vSphere',
  zerto: 'Zerto',
  lifecycle: 'Two-phase lifecycle',
  lab: 'Lab only (`--lab`)',
};

export function toolsetTable(tools: AnyTool[]): string {
  const names = (set: string) => tools.filter((t) => toolsetOf(t) === set).map((t) => `\`${t.name}\``);
  const cell = (set: string, note?: string) => {
    const listed = names(set);
    return [listed.length ? `${listed.join(', ')} (${listed.length})` : '', note ?? ''].filter(Boolean).join('; ');
  };
  const out = ['| Toolset | What it holds | Tools | In the default |', '|---|---|---|---|', `| (discovery) | In every selection. | ${cell('discovery')} | always |`];
  for (const t of TOOLSETS) {
    const note = 'note' in t ? t.note : undefined;
    out.push(`| \`${t.id}\` | ${t.description.replace(/\|/g, '\\|')} | ${cell(t.id, note)} | ${t.default ? 'yes' : 'no'} |`);
  }
  return out.join('\n');
}

export function toolTable(tools: AnyTool[]): string {
  const out: string[] = [];
  for (const surface of ['vsphere', 'zerto', 'lifecycle', 'lab']) {
    const group = tools.filter((t) => surfaceOf(t) === surface);
    if (!group.length) continue;
    out.push(`### ${SURFACE_TITLES[surface]}`, '', '| Tool | Category | Two-phase | What it does |', '|---|---|---|---|');
    for (const t of group) {
      const first = t.description.split(/(?<=\.)\s/)[0]!.replace(/\|/g, '\\|');
      out.push(`| \`${t.name}\` | ${t.category} | ${isTwoPhase(t) ? 'yes' : ''} | ${first} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/**
 * The whole of docs/tools.md. `tools` are every declaration, the lab's included (tools outside
 * them, such as a downstream server's, are described by the set's `note`).
 */
export function toolReferenceFile(tools: AnyTool[]): string {
  return [
    '# Tools',
    '',
    '<!-- Generated from the tool declarations by `npm run docs:tools`; do not edit by hand. -->',
    '',
    'Every tool this server declares: first the toolsets (which of them a process serves is chosen by',
    '[toolsets](toolsets.md)), then the tools by surface, with the first sentence of each description.',
    'Destructive tools exist only with `ENABLE_DESTRUCTIVE=true` (or `--lab`).',
    '',
    '## Toolsets',
    '',
    toolsetTable(tools),
    '',
    '## Tools',
    '',
    toolTable(tools.filter((t) => surfaceOf(t) !== 'lab')),
    '',
    'With `downstream` servers configured (and in `--lab`), `list_downstream` (read) is registered too,',
    'and each downstream tool as `<server>__<tool>` (see [the gateway](gateway.md)).',
    '',
  ].join('\n');
}
