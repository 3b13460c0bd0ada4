// DOM building for the dashboard. Every string that came from upstream (VM names, summaries, error
// messages, audit lines) is untrusted: it reaches the page only as text nodes or textContent, never
// through innerHTML, so a VM named `<img src=x onerror=...>` is shown as exactly that.

/**
 * Creates an element. `props`: `class`, `text` (textContent), `on<event>` (listener), `dataset`,
 * anything else becomes an attribute (attribute names always come from this code, never from data).
 * Children may be nodes, strings (become text nodes), arrays, or null/false (skipped).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  appendAll(el, children);
  return el;
}

function appendAll(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) appendAll(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function setChildren(el, ...children) {
  el.replaceChildren();
  appendAll(el, children);
}

/** "2026-08-20 14:02:11" in the browser's zone; the raw value when it is not a date. */
export function fmtTime(iso) {
  if (typeof iso !== 'string' && typeof iso !== 'number') return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "1:05" / "1:02:03" for a positive millisecond span. */
export function fmtDuration(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hrs = Math.floor(total / 3600);
  const pad = (n) => String(n).padStart(2, '0');
  return hrs > 0 ? `${hrs}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** A cell's text for an arbitrary value: strings as they are, everything else as compact JSON. */
export function cellText(value, max = 160) {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Pretty JSON for a <pre>, bounded so one huge result cannot freeze the tab. */
export function prettyJson(value, max = 20000) {
  let text;
  try {
    text = JSON.stringify(value, null, 2);
  } catch {
    text = String(value);
  }
  if (text === undefined) return '';
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

/** A small coloured label; `kind` picks the colour class. */
export function badge(text, kind) {
  return h('span', { class: `badge ${kind ?? ''}`.trim(), text });
}

/** A table from column specs `{label, cell(row) -> Node|string, class?}`. */
export function table(columns, rows, opts = {}) {
  return h(
    'table',
    { class: `grid ${opts.class ?? ''}`.trim() },
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { class: c.class, text: c.label })))),
    h(
      'tbody',
      {},
      rows.map((row) => h('tr', { class: opts.rowClass?.(row) }, columns.map((c) => h('td', { class: c.class }, c.cell(row))))),
    ),
  );
}

/** Empty-state or error line inside a view. */
export function message(text, kind = 'muted') {
  return h('div', { class: `message ${kind}`, text });
}
