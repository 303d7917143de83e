// The explorer's shell: sign-in with an API key (kept in sessionStorage),
// the caller's grants from GET /v1/whoami, and the views by URL hash.
import { key, setKey, whoami, signOut, me, APIError, acting, setActing } from './api.js';
import { h, clear, failed, loading } from './dom.js';
import * as memories from './memories.js';
import * as search from './search.js';
import * as knowledge from './knowledge.js';
import * as conversations from './conversations.js';
import * as documents from './documents.js';
import * as workstreams from './workstreams.js';
import * as operations from './operations.js';

const views = { memories, search, knowledge, conversations, workstreams, documents, operations };
const root = document.getElementById('view');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const actingBar = document.getElementById('acting');

function signInForm(error) {
  const input = h('input', { type: 'password', name: 'key', id: 'key', autocomplete: 'off', required: true, spellcheck: 'false' });
  const form = h('form', { class: 'card signin', onsubmit: async (e) => {
    e.preventDefault();
    setKey(input.value.trim());
    await start();
  } },
  h('h2', {}, 'Sign in'),
  h('p', {}, 'Paste an API key. The page calls the API with it and sees exactly what the key sees. It is kept in this tab only, until you sign out or close the tab.'),
  h('label', { for: 'key' }, 'API key'), input,
  error ? h('p', { class: 'state error', role: 'alert' }, error) : null,
  h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Sign in')),
  h('p', { class: 'hint' }, 'No key? make run prints the development key and keeps it in ./data/dev-api-key.'));
  nav.hidden = true; who.hidden = true; actingBar.hidden = true;
  clear(root, form);
  input.focus();
}

function showWho() {
  const scope = me.agentId ? `agent ${me.agentId}` : 'org-level';
  clear(who, h('span', { class: 'badge' }, me.orgId), ' ', h('span', {}, scope), ' ',
    h('span', { class: 'muted' }, (me.grants || []).join(', ')), ' ',
    h('button', { type: 'button', class: 'ghost', id: 'signout', onclick: () => { signOut(); location.hash = ''; signInForm(); } }, 'Sign out'));
  who.hidden = false;
  nav.hidden = false;
}

/**
 * showActing draws the bar that says whom the page's reads serve: an end
 * user (userId) and a room, applied to every read, or the key's own view.
 */
function showActing() {
  const a = acting();
  const user = h('input', { id: 'acting-user', name: 'userId', value: a.userId || '', placeholder: 'e.g. alice', autocomplete: 'off', spellcheck: 'false' });
  const room = h('input', { id: 'acting-room', name: 'roomId', value: a.roomId || '', placeholder: 'e.g. room-alice', autocomplete: 'off', spellcheck: 'false' });
  const on = !!(a.userId || a.roomId);
  const status = on
    ? h('p', { id: 'acting-status', class: 'acting-on', role: 'status' }, h('strong', {}, 'Acting as '),
      a.userId ? [h('span', { class: 'badge' }, `user ${a.userId}`), ' '] : null,
      a.roomId ? [h('span', { class: 'badge' }, `room ${a.roomId}`), ' '] : null,
      h('span', {}, '— every view shows only what they may see.'))
    : h('p', { id: 'acting-status', class: 'muted', role: 'status' },
      me.agentId ? 'Your key\'s own view.' : 'Your key\'s own view: an org key sees everything in the org (admin view).');
  const apply = (userId, roomId) => { setActing({ userId, roomId }); showActing(); route(); };
  clear(actingBar, h('form', { class: 'acting-form', 'aria-label': 'Act as an end user', onsubmit: (e) => { e.preventDefault(); apply(user.value.trim(), room.value.trim()); } },
    h('label', { for: 'acting-user' }, 'Act as user'), user,
    h('label', { for: 'acting-room' }, 'in room'), room,
    h('button', { type: 'submit', id: 'acting-apply' }, 'Act'),
    on ? h('button', { type: 'button', class: 'ghost', id: 'acting-stop', onclick: () => apply('', '') }, 'Stop acting') : null),
  status);
  actingBar.classList.toggle('on', on);
  actingBar.hidden = false;
}

let current = null;
async function route() {
  if (!me) return;
  const [name, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  const view = views[name] ? name : 'memories';
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset.view === view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  if (current && current.stop) current.stop();
  document.title = `${view[0].toUpperCase()}${view.slice(1)} · Memory explorer`;
  clear(root);
  current = views[view].render(root, rest.map(decodeURIComponent)) || null;
}

async function start() {
  if (!key()) return signInForm();
  clear(root, loading('your key'));
  try {
    await whoami();
  } catch (e) {
    if (e instanceof APIError && (e.status === 401 || e.status === 403)) {
      setKey('');
      return signInForm(`That key was not accepted (${e.message}). Check it and try again.`);
    }
    return clear(root, failed(e, start));
  }
  showWho();
  showActing();
  if (!location.hash) location.hash = '#/memories';
  else route();
}

window.addEventListener('hashchange', route);
start();
