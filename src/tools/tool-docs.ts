// The tool reference, docs/tools.md, generated from the declarations: scripts/gen-tool-docs.mjs
// (`npm run docs:tools`) writes it, and a contract test fails when the checked-in file and the
// declarations disagree. The output depends on the declarations alone, so it is the same on every
// run and every machine.
import { isTwoPhase, type AnyTool } from './define.js';

/** Where the generated reference lives, relative to the repository root. */
export const TOOL_REFERENCE_PATH = 'docs/tools.md';

const SURFACE_TITLES: Record<string, string> = {
  vsphere: 'vSphere',
  zerto: 'Zerto',
  lifecycle: 'Two-phase lifecycle',
  lab: 'Lab only (`--lab`)',
};

export function toolTable(tools: AnyTool[]): string {
  const out: string[] = [];
  for (const surface of ['vsphere', 'zerto', 'lifecycle', 'lab']) {
    const group = tools.filter((t) => t.surface === surface);
    if (!group.length) continue;
    out.push(`#### ${SURFACE_TITLES[surface]}`, '', '| Tool | Category | Two-phase | What it does |', '|---|---|---|---|');
    for (const t of group) {
      const first = t.description.split(/(?<=\.)\s/)[0]!.replace(/\|/g, '\\|');
      out.push(`| \`${t.name}\` | ${t.category} | ${isTwoPhase(t) ? 'yes' : ''} | ${first} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** The whole of docs/tools.md: a heading and a note around the generated tables. */
export function toolReferenceFile(tools: AnyTool[]): string {
  return [
    '# Tools',
    '',
    '<!-- Generated from the tool declarations by `npm run docs:tools`; do not edit by hand. -->',
    '',
    'Every tool this server declares, by surface, with the first sentence of its description. Which of',
    'them a process serves is chosen by [toolsets](toolsets.md); destructive tools exist only with',
    '`ENABLE_DESTRUCTIVE=true` (or `--lab`).',
    '',
    toolTable(tools),
    '',
    'With `downstream` servers configured (and in `--lab`), `list_downstream` (read) is registered too,',
    'and each downstream tool as `<server>__<tool>` (see [the gateway](gateway.md)).',
    '',
  ].join('\n');
}
