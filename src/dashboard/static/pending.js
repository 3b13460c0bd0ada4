// The Pending tab: the work-order queue. Each proposal shows which target (name AND host) it will
// change, every affected object with its moid, the VPGs that will be checkpointed first, who asked,
// and how long is left. Whether the queue is a real gate is per proposal, and the card says which.
import { apiGet, apiPost, ApiError, AuthError } from './client.js';
import { badge, cellText, fmtDuration, fmtTime, h, prettyJson, setChildren, table } from './dom.js';

const POLL_MS = 3000;
const STATE_KIND = {
  pending: 'warn',
  executing: 'info',
  executed: 'ok',
  failed: 'bad',
  cancelled: 'neutral',
  expired: 'neutral',
};
const NAME_KEY = 'zerto-rewind-dashboard.approver-name';

export function createPendingView({ onCount }) {
  const list = document.getElementById('pending-list');
  const notice = document.getElementById('pending-notice');
  const updated = document.getElementById('pending-updated');
  const nameInput = document.getElementById('approver-name');
  nameInput.value = sessionStorage.getItem(NAME_KEY) ?? '';
  nameInput.addEventListener('input', () => sessionStorage.setItem(NAME_KEY, nameInput.value));

  // Cards are kept by id and rebuilt only when their proposal changed, so the 3-second refresh does
  // not pull a button out from under a pointer that is about to click it.
  const cards = new Map();
  let skewMs = 0;
  let pollTimer = null;
  let tickTimer = null;

  async function refresh() {
    try {
      const data = await apiGet('api/proposals');
      skewMs = Date.parse(data.now) - Date.now();
      render(data.proposals);
      updated.textContent = `updated ${fmtTime(new Date().toISOString())}`;
      if (notice.dataset.kind === 'poll') showNotice(null);
    } catch (err) {
      if (!(err instanceof AuthError)) showNotice(`Could not load proposals: ${err.message}`, 'poll');
    }
  }

  function render(proposals) {
    const sorted = [...proposals].sort(order);
    const seen = new Set();
    for (const p of sorted) {
      seen.add(p.id);
      const sig = JSON.stringify(p);
      const existing = cards.get(p.id);
      if (existing && existing.sig === sig) continue;
      const card = buildCard(p);
      if (existing) existing.el.replaceWith(card.el);
      cards.set(p.id, { ...card, sig });
    }
    for (const [id, card] of cards) {
      if (!seen.has(id)) {
        card.el.remove();
        cards.delete(id);
      }
    }
    const wanted = sorted.map((p) => cards.get(p.id).el);
    // Re-append only when the order changed: moving nodes is what would disturb a click.
    if (wanted.some((el, i) => list.children[i] !== el) || list.children.length !== wanted.length) {
      setChildren(list, wanted);
    }
    if (sorted.length === 0) setChildren(list, h('div', { class: 'message muted', text: 'No proposals. Destructive actions the agent proposes appear here.' }));
    onCount(proposals.filter((p) => p.state === 'pending').length);
    tick();
  }

  function buildCard(p) {
    const countdown = h('span', { class: 'countdown' });
    const actions = [];
    const isPending = p.state === 'pending';
    if (isPending) {
      actions.push(
        h('button', { type: 'button', class: 'btn primary', dataset: { action: 'confirm' }, onclick: () => act(p, 'confirm'), text: 'Confirm & execute' }),
        h('button', { type: 'button', class: 'btn danger-outline', dataset: { action: 'cancel' }, onclick: () => act(p, 'cancel'), text: 'Deny' }),
      );
    }
    // Only `approval: single` (and no require_web_approval) lets the agent confirm it itself.
    const needsPerson = p.requires_web_approval || (p.approval && p.approval !== 'single');
    const gate = needsPerson
      ? h('span', { class: 'tag gated', text: p.requires_web_approval ? 'blocked until approved here' : p.approval === 'second_person' ? 'needs a second person' : 'blocked until a person approves' })
      : h('span', { class: 'tag ungated', text: 'not gated' });

    const el = h(
      'article',
      { class: `card state-${p.state}`, dataset: { id: p.id, state: p.state } },
      h('div', { class: 'card-head' }, badge(p.state, STATE_KIND[p.state]), h('code', { class: 'tool', text: p.tool }), gate, isPending ? countdown : null),
      h(
        'div',
        { class: 'target-line' },
        h('span', { class: 'label', text: 'Target' }),
        h('strong', { class: 'target-name', text: p.target?.name ?? '?' }),
        h('span', { class: 'target-host', text: p.target?.host ?? '' }),
      ),
      h('p', { class: 'summary', text: p.summary }),
      // The same words, byte for byte, that the person's client shows when it asks.
      p.question ? h('pre', { class: 'question', text: p.question }) : null,
      needsPerson
        ? null
        : h('p', { class: 'note', text: 'not gated — the agent may confirm this itself at any moment; this entry is informational' }),
      affectedTable(p.affected ?? []),
      h(
        'dl',
        { class: 'meta' },
        metaRow('Checkpoint VPGs', p.checkpoint_vpgs?.length ? p.checkpoint_vpgs.join(', ') : 'none'),
        metaRow('Requested by', p.requester),
        metaRow('Created', fmtTime(p.created_at)),
        isPending ? metaRow('Expires', fmtTime(p.expires_at)) : null,
        p.decided_by ? metaRow('Decided by', p.decided_by) : null,
        metaRow('Proposal', p.id),
      ),
      p.outcome ? outcomeBlock(p.outcome) : null,
      actions.length ? h('div', { class: 'actions' }, actions) : null,
    );
    // A link from the client (URL elicitation, confirm_with) opens the page at this proposal.
    if (location.hash === `#proposal=${encodeURIComponent(p.id)}`) {
      el.classList.add('focus');
      queueMicrotask(() => el.scrollIntoView({ block: 'center' }));
    }
    return { el, countdown, expiresAt: Date.parse(p.expires_at), pending: isPending };
  }

  async function act(p, action) {
    const card = cards.get(p.id);
    for (const btn of card?.el.querySelectorAll('button') ?? []) btn.disabled = true;
    if (card) card.el.classList.add('busy');
    const name = nameInput.value.trim();
    try {
      const res = await apiPost(`api/proposals/${encodeURIComponent(p.id)}/${action}`, name ? { name } : {});
      const what = action === 'confirm' ? 'Confirmed' : 'Denied';
      const detail = res.error ? `: ${res.error.code} — ${res.error.message}` : '';
      showNotice(`${what} ${p.tool} on ${p.target?.name ?? '?'}: ${res.state}${detail}`, res.error ? 'bad' : 'ok');
    } catch (err) {
      if (err instanceof AuthError) return;
      const code = err instanceof ApiError ? `${err.code}: ` : '';
      showNotice(`${action === 'confirm' ? 'Confirm' : 'Deny'} failed for ${p.tool} on ${p.target?.name ?? '?'}: ${code}${err.message}`, 'bad');
    } finally {
      // Force a rebuild from the server's view of the proposal, whatever happened.
      const current = cards.get(p.id);
      if (current) current.sig = '';
      await refresh();
    }
  }

  function showNotice(text, kind) {
    notice.hidden = text === null;
    notice.className = `notice ${kind ?? ''}`;
    notice.dataset.kind = kind ?? '';
    notice.textContent = text ?? '';
  }

  function tick() {
    const now = Date.now() + skewMs;
    for (const card of cards.values()) {
      if (!card.pending) continue;
      const left = card.expiresAt - now;
      card.countdown.textContent = left > 0 ? `expires in ${fmtDuration(left)}` : 'expired';
      card.countdown.classList.toggle('urgent', left < 30000);
      if (left <= 0) for (const btn of card.el.querySelectorAll('.actions button')) btn.disabled = true;
    }
  }

  return {
    start() {
      if (pollTimer !== null) return;
      void refresh();
      pollTimer = setInterval(refresh, POLL_MS);
      tickTimer = setInterval(tick, 1000);
    },
    stop() {
      clearInterval(pollTimer);
      clearInterval(tickTimer);
      pollTimer = null;
      tickTimer = null;
    },
  };
}

// Pending first, soonest to expire on top; then the decided ones, newest first.
function order(a, b) {
  const ap = a.state === 'pending' ? 0 : 1;
  const bp = b.state === 'pending' ? 0 : 1;
  if (ap !== bp) return ap - bp;
  if (ap === 0) return Date.parse(a.expires_at) - Date.parse(b.expires_at);
  return Date.parse(b.created_at) - Date.parse(a.created_at);
}

function affectedTable(affected) {
  if (affected.length === 0) return null;
  const extra = (row) =>
    Object.entries(row)
      .filter(([k]) => k !== 'type' && k !== 'name' && k !== 'moid')
      .map(([k, v]) => `${k}=${cellText(v, 60)}`)
      .join(' · ');
  return table(
    [
      { label: 'Type', cell: (r) => r.type },
      { label: 'Name', cell: (r) => h('span', { class: 'obj-name', text: r.name }) },
      { label: 'Moid', cell: (r) => h('code', { text: r.moid ?? '—' }) },
      { label: 'Details', cell: (r) => extra(r), class: 'muted' },
    ],
    affected,
    { class: 'affected' },
  );
}

function metaRow(label, value) {
  return [h('dt', { text: label }), h('dd', { text: value ?? '' })];
}

function outcomeBlock(outcome) {
  if (outcome.ok) {
    return h(
      'details',
      { class: 'outcome ok' },
      h('summary', { text: 'Outcome: succeeded (show result)' }),
      h('pre', { text: prettyJson(outcome.result) }),
    );
  }
  const err = outcome.error ?? { code: 'unknown', message: '' };
  return h('div', { class: 'outcome bad' }, h('strong', { text: `Outcome: ${err.code}` }), ' ', h('span', { text: err.message }));
}
