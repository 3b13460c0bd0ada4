// Dashboard bootstrap: take the token out of the address bar, then wire the four tabs. Loaded as a
// module from 'self' because the CSP forbids inline script.
import { SIGN_IN_MODE, adoptTokenFromUrl, apiGet, apiPost, clearToken, hasToken, onAuthRequired, setToken } from './client.js';
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
  if (SIGN_IN_MODE === 'oidc') void showSignedInUser();
  pending.start();
  showTab(sessionStorage.getItem(TAB_KEY) ?? 'pending');
}

function requireSignIn(reason) {
  pending.stop();
  for (const key of Object.keys(views)) document.getElementById(`view-${key}`).hidden = true;
  status.textContent = 'signed out';
  status.className = 'status bad';
  if (SIGN_IN_MODE === 'oidc') {
    document.getElementById('signout').hidden = true;
    signin.querySelector('h1').textContent = 'Sign in required';
    document.getElementById('signin-reason').textContent = reason === 'signed-out'
      ? 'You signed out.'
      : 'Your session ended. Sign in again with your identity provider account.';
    document.getElementById('signin-form').hidden = true;
    document.getElementById('signin-oidc').hidden = false;
    signin.hidden = false;
    return;
  }
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

// OIDC mode: the approver is the signed-in user, so the typed-name field has no place.
async function showSignedInUser() {
  const field = document.getElementById('approver-name-field');
  field.hidden = true;
  document.getElementById('approver-name').value = '';
  const me = await apiGet('api/session').catch(() => null);
  if (!me || me.sign_in !== 'oidc') return;
  status.textContent = `signed in as ${me.name} (${me.identity})`;
  status.title = 'Confirmations and denials are recorded as this identity';
  const signout = document.getElementById('signout');
  signout.hidden = false;
  signout.onclick = async () => {
    const out = await apiPost('auth/logout').catch(() => null);
    requireSignIn('signed-out');
    // Ends the identity provider's session too, when it has an end-session endpoint.
    if (out && out.end_session_url) window.location.assign(out.end_session_url);
  };
}

if (hasToken()) start();
else requireSignIn('missing');
