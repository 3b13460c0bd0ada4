// The Audit tab: a filterable tail of the JSONL audit log, newest first. Filtering happens on the
// server (the log can be large); each line's full record is one click away.
import { apiGet, AuthError } from './client.js';
import { badge, cellText, fmtTime, h, message, prettyJson, setChildren, table } from './dom.js';

const PHASE_KIND = {
  executed: 'ok',
  dry_run: 'ok',
  failed: 'bad',
  denied: 'bad',
  proposed: 'warn',
  executing: 'info',
  cancelled: 'neutral',
  call: 'neutral',
};

export function createAuditView() {
  const form = document.getElementById('audit-form');
  const body = document.getElementById('audit-body');
  const field = (id) => document.getElementById(id).value.trim();
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void load();
  });
  document.getElementById('audit-phase').addEventListener('change', () => void load());

  async function load() {
    setChildren(body, message('Loading…'));
    try {
      const { records } = await apiGet('api/audit', {
        limit: field('audit-limit') || 100,
        tool: field('audit-tool'),
        target: field('audit-target'),
        phase: field('audit-phase'),
        text: field('audit-text'),
      });
      if (records.length === 0) {
        setChildren(body, message('No audit records match.'));
        return;
      }
      // The port returns file order (oldest first); people read incidents newest first.
      const rows = [...records].reverse();
      setChildren(
        body,
        h('div', { class: 'muted small summary-line', text: `${rows.length} record${rows.length === 1 ? '' : 's'}` }),
        table(
          [
            { label: 'Time', cell: (r) => h('span', { class: 'nowrap', text: fmtTime(r.ts) }) },
            { label: 'Phase', cell: (r) => badge(cellText(r.phase), PHASE_KIND[r.phase] ?? 'neutral') },
            { label: 'Tool', cell: (r) => h('code', { text: cellText(r.tool) }) },
            { label: 'Target', cell: (r) => cellText(r.target) },
            { label: 'Identity', cell: (r) => cellText(r.identity) },
            { label: 'Detail', cell: (r) => detail(r), class: 'wide' },
          ],
          rows,
          { class: 'audit' },
        ),
      );
    } catch (err) {
      if (!(err instanceof AuthError)) setChildren(body, message(`Could not load the audit log: ${err.message}`, 'bad'));
    }
  }

  return { activate: load };
}

// The one line a reviewer wants first: why it was denied, what failed, or else the arguments.
function detail(record) {
  const reason = record.decision?.reason ?? record.error?.message ?? (record.args ? JSON.stringify(record.args) : '');
  return h('details', {}, h('summary', { text: cellText(reason, 140) || 'record' }), h('pre', { text: prettyJson(record) }));
}
