// Dashboard bootstrap: take the token out of the address bar, then wire the four tabs. Loaded as a
// module from 'self' because the CSP forbids inline script.
import { adoptTokenFromUrl, clearToken, hasToken, onAuthRequired, setToken } from './client.js';
import { createAuditView } from './audit.js';
import { createInventoryView } from './inventory.js';
import { createPendingView } from './pending.js';
import { createTargetsView } from './targets.js';

// First, before anything can fetch or log: the token must not linger in the URL.
adoptTokenFromUrl();

const TAB_KEY = 'zerto-rewind-dashboard.tab';
const signin = document.getElementById('signin');
const status = document.getElementById('conn-status');
const pendingCount = document.getElementById('pending-count');

const pending = createPendingView({
  onCount: (n) => {
    pendingCount.textContent = n > 0 ? String(n) : '';
    document.title = n > 0 ? `(${n}) Zerto Rewind · Dashboard` : 'Zerto Rewind · Dashboard';
  },
});
const views = {
  pending: { activate: () => {} },
  targets: createTargetsView(),
  inventory: createInventoryView(),
  audit: createAuditView(),
};

function showTab(name) {
  const tab = views[name] ? name : 'pending';
  for (const btn of document.querySelectorAll('.tab')) {
    const on = btn.dataset.tab === tab;
    btn.classList.toggle('active', on);
    btn.setAttribute('aria-selected', String(on));
  }
  for (const key of Object.keys(views)) document.getElementById(`view-${key}`).hidden = key !== tab;
  sessionStorage.setItem(TAB_KEY, tab);
  void views[tab].activate();
}

for (const btn of document.querySelectorAll('.tab')) {
  btn.addEventListener('click', () => {
    if (hasToken()) showTab(btn.dataset.tab);
  });
}

function start() {
  signin.hidden = true;
  status.textContent = 'connected';
  status.className = 'status ok';
  pending.start();
  showTab(sessionStorage.getItem(TAB_KEY) ?? 'pending');
}

function requireSignIn(reason) {
  pending.stop();
  for (const key of Object.keys(views)) document.getElementById(`view-${key}`).hidden = true;
  status.textContent = 'signed out';
  status.className = 'status bad';
  document.getElementById('signin-reason').textContent =
    reason === 'rejected'
      ? 'The server rejected the token (it may have been restarted with a new WEB_UI_TOKEN). Enter the current one.'
      : 'Enter the WEB_UI_TOKEN this server was started with. It is kept in this tab only.';
  signin.hidden = false;
  document.getElementById('signin-token').focus();
}

onAuthRequired((reason) => {
  if (reason === 'rejected') clearToken();
  requireSignIn(reason);
});

document.getElementById('signin-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = document.getElementById('signin-token');
  const token = input.value.trim();
  input.value = '';
  if (!token) return;
  setToken(token);
  start();
});

if (hasToken()) start();
else requireSignIn('missing');
