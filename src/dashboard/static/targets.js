// The Targets tab: is each configured vCenter / ESXi reachable, which API version it speaks, the
// last error, and whether two names point at the same instance (then one of them should go: a
// policy written for one name silently does not cover the other).
import { apiGet, AuthError } from './client.js';
import { badge, fmtTime, h, message, setChildren, table } from './dom.js';

export function createTargetsView() {
  const body = document.getElementById('targets-body');
  const updated = document.getElementById('targets-updated');
  document.getElementById('targets-refresh').addEventListener('click', () => void load());

  async function load() {
    setChildren(body, message('Checking targets…'));
    try {
      const { targets } = await apiGet('api/targets');
      updated.textContent = `updated ${fmtTime(new Date().toISOString())}`;
      if (targets.length === 0) {
        setChildren(body, message('No vSphere targets configured.'));
        return;
      }
      setChildren(
        body,
        table(
          [
            { label: 'Target', cell: (t) => h('strong', { text: t.name }) },
            { label: 'Host', cell: (t) => h('code', { text: t.host }) },
            { label: 'Status', cell: (t) => (t.connected ? badge('connected', 'ok') : badge('not connected', 'bad')) },
            { label: 'API version', cell: (t) => t.api_version ?? '—' },
            {
              label: 'Duplicate instance',
              cell: (t) =>
                t.shares_instance_with?.length
                  ? h('span', { class: 'tag warn', text: `same instance as ${t.shares_instance_with.join(', ')}` })
                  : '—',
            },
            { label: 'Last error', cell: (t) => (t.last_error ? h('span', { class: 'error-text', text: t.last_error }) : '—') },
          ],
          targets,
          { rowClass: (t) => (t.connected ? '' : 'row-bad') },
        ),
      );
    } catch (err) {
      if (!(err instanceof AuthError)) setChildren(body, message(`Could not load targets: ${err.message}`, 'bad'));
    }
  }

  return { activate: load };
}
