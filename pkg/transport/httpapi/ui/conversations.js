// Conversations: a room's transcript, turn by turn, with the facts
// extracted from each turn beside it and the extraction decision of each
// (new, duplicate, enriches, supersedes, contradicts; the rule and scores).
import { call } from './api.js';
import { h, clear, time, loading, empty, failed, short } from './dom.js';
import { decisionText } from './memories.js';

const MAX_PAGES = 10; // 10 pages of 500: the newest 5,000 turns or facts

async function all(query) {
  const out = [];
  let cursor = '';
  for (let i = 0; i < MAX_PAGES; i++) {
    const { data } = await call('GET', '/v1/memories', { query: { ...query, limit: 500, cursor } });
    out.push(...data.memories);
    cursor = data.nextCursor;
    if (!cursor) return { items: out, truncated: false };
  }
  return { items: out, truncated: true };
}

/** render draws the view; args[0] is the room. */
export function render(root, args) {
  const rooms = h('nav', { class: 'card rooms', 'aria-label': 'Rooms' }, loading('rooms'));
  const transcript = h('section', { class: 'card', id: 'transcript', 'aria-label': 'Transcript', tabindex: '-1' },
    empty('Pick a room to read its transcript.', 'Rooms are the roomId of the messages written with POST /v1/messages.'));
  root.append(h('div', { class: 'split narrow-left' }, rooms, transcript));

  (async function loadRooms() {
    try {
      const { items } = await all({ type: 'message' });
      const counts = new Map();
      for (const m of items) if (m.roomId) counts.set(m.roomId, (counts.get(m.roomId) || 0) + 1);
      if (!counts.size) {
        clear(rooms, h('h2', {}, 'Rooms'), empty('No conversations yet.', 'Post turns to /v1/messages with a roomId; the facts extracted from them appear here.'));
        return;
      }
      clear(rooms, h('h2', {}, 'Rooms'), h('ul', { class: 'plain' }, [...counts].sort().map(([r, n]) =>
        h('li', {}, h('a', { href: `#/conversations/${encodeURIComponent(r)}`, 'aria-current': r === args[0] ? 'page' : false }, r), h('small', { class: 'muted' }, ` ${n} turns`)))));
    } catch (e) { clear(rooms, failed(e, loadRooms)); }
  })();
  if (args[0]) show(args[0]);

  async function show(room) {
    clear(transcript, loading(`room ${room}`));
    try {
      const [turns, facts] = await Promise.all([all({ type: 'message', roomId: room }), all({ type: 'fact', includeArchived: true })]);
      const msgs = turns.items.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      const bySource = new Map();
      for (const f of facts.items) {
        for (const s of ((f.metadata || {}).sources || [])) {
          if (!bySource.has(s)) bySource.set(s, []);
          bySource.get(s).push(f);
        }
      }
      if (!msgs.length) { clear(transcript, empty(`No turns in room ${room} that this key can see.`, 'Pick another room.')); return; }
      clear(transcript, h('h2', {}, `Room ${room}`),
        turns.truncated || facts.truncated ? h('p', { class: 'warn' }, 'Showing the newest 5,000 turns and facts only.') : null,
        h('ol', { class: 'turns' }, msgs.map((m) => {
          const fs = bySource.get(m.id) || [];
          return h('li', { class: 'turn' },
            h('div', { class: 'said' }, h('p', {}, h('strong', {}, m.entityId || 'someone'), h('small', { class: 'muted' }, ` ${time(m.createdAt)}`)),
              h('p', {}, h('a', { href: `#/memories/${encodeURIComponent(m.id)}` }, m.content.text))),
            h('div', { class: 'extracted', 'aria-label': 'Facts extracted from this turn' }, fs.length ? fs.map((f) => {
              const d = (f.metadata || {}).decision;
              return h('div', { class: 'fact' },
                h('p', {}, d ? h('span', { class: `badge d-${d.kind}` }, d.kind) : null, ' ',
                  h('a', { href: `#/memories/${encodeURIComponent(f.id)}` }, short(f.content.text, 140)),
                  f.archived ? h('span', { class: 'badge warn' }, 'archived') : null),
                d ? h('p', { class: 'why' }, decisionText(d)) : null);
            }) : h('p', { class: 'muted' }, 'No fact extracted from this turn.')));
        })));
      transcript.focus();
    } catch (e) { clear(transcript, failed(e, () => show(room))); }
  }
  return null;
}
