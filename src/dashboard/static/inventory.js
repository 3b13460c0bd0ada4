// The Inventory tab: a read-only browser over the same fan-out reads the agent uses. One target
// failing does not hide the others: its error is listed above the rows that did arrive.
import { apiGet, AuthError } from './client.js';
import { cellText, h, message, setChildren, table } from './dom.js';

// Columns most worth seeing first; the rest follow in the order the server sent them.
const PREFERRED = ['name', 'moid', 'power_state', 'connection_state', 'guest_os', 'cpu', 'memory_mb', 'host', 'cluster', 'datastore'];
const MAX_COLUMNS = 10;

export function createInventoryView() {
  const kindSel = document.getElementById('inv-kind');
  const targetSel = document.getElementById('inv-target');
  const filterInput = document.getElementById('inv-filter');
  const body = document.getElementById('inv-body');
  let lastRows = [];
  let lastColumns = [];
  let lastErrors = [];
  let lastSummary = '';
  let seq = 0;

  kindSel.addEventListener('change', () => void load());
  targetSel.addEventListener('change', () => void load());
  document.getElementById('inv-refresh').addEventListener('click', () => void load());
  filterInput.addEventListener('input', () => draw());

  async function load() {
    const mine = ++seq;
    setChildren(body, message('Loading…'));
    try {
      const data = await apiGet('api/inventory', { kind: kindSel.value, target: targetSel.value });
      if (mine !== seq) return; // a newer selection is already loading
      fillTargets(data.targets, data.target);
      lastErrors = data.results.filter((r) => r.error);
      lastRows = data.results.flatMap((r) => (r.ok ? r.ok.items.map((item) => ({ target: r.target, item })) : []));
      lastColumns = columnsFor(lastRows.map((r) => r.item));
      lastSummary = data.results
        .filter((r) => r.ok)
        .map((r) => `${r.target}: ${r.ok.items.length} of ${r.ok.total}`)
        .join(' · ');
      draw();
    } catch (err) {
      if (mine !== seq || err instanceof AuthError) return;
      setChildren(body, message(`Could not load inventory: ${err.message}`, 'bad'));
    }
  }

  function fillTargets(names, selected) {
    const current = [...targetSel.options].map((o) => o.value).join('\n');
    const wanted = ['all', ...names].join('\n');
    if (current === wanted) return;
    setChildren(targetSel, h('option', { value: 'all', text: 'All targets' }), names.map((n) => h('option', { value: n, text: n })));
    targetSel.value = selected;
  }

  function draw() {
    const needle = filterInput.value.trim().toLowerCase();
    const rows = needle
      ? lastRows.filter((r) => r.target.toLowerCase().includes(needle) || JSON.stringify(r.item).toLowerCase().includes(needle))
      : lastRows;
    const errors = lastErrors.map((r) =>
      h(
        'div',
        { class: 'target-error' },
        h('strong', { text: r.target }),
        h('code', { text: r.error.code }),
        h('span', { text: r.error.message }),
        r.error.retryable ? h('span', { class: 'muted', text: '(retryable)' }) : null,
      ),
    );
    const columns = [
      { label: 'Target', cell: (r) => h('span', { class: 'muted', text: r.target }) },
      ...lastColumns.map((key) => ({
        label: key,
        cell: (r) => (key === 'moid' ? h('code', { text: cellText(r.item[key]) }) : cellText(r.item[key])),
      })),
    ];
    setChildren(
      body,
      errors,
      lastSummary ? h('div', { class: 'muted small summary-line', text: `${lastSummary}${needle ? ` · ${rows.length} match the filter` : ''}` }) : null,
      rows.length ? table(columns, rows, { class: 'inventory' }) : message(lastErrors.length ? 'No rows from the reachable targets.' : 'Nothing here.'),
    );
  }

  return { activate: load };
}

function columnsFor(items) {
  const seen = new Set();
  for (const item of items.slice(0, 200)) for (const key of Object.keys(item)) seen.add(key);
  const first = PREFERRED.filter((k) => seen.has(k));
  const rest = [...seen].filter((k) => !PREFERRED.includes(k));
  return [...first, ...rest].slice(0, MAX_COLUMNS);
}
