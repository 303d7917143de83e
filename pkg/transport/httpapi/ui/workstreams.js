// Memory blocks: the workstreams the key sees (GET /v1/workstreams), a
// block's role-labelled entries against its limit, its compaction history
// (what each compaction merged or folded, word for word, and the summary
// it wrote), and an append form (POST /v1/workstreams/{id}/entries) for a
// key that can write.
import { call, can, has } from './api.js';
import { h, clear, time, loading, empty, failed, toast, field } from './dom.js';

/** render draws the view; args[0] opens that workstream. */
export function render(root, args) {
  if (!has('workstreams')) {
    root.append(empty('This server keeps no memory blocks.', 'Workstreams need a store that keeps records (SQLite or DynamoDB); see docs/architecture.md.'));
    return null;
  }
  const list = h('nav', { class: 'card rooms', id: 'workstreams', 'aria-label': 'Workstreams' }, loading('workstreams'));
  const block = h('section', { class: 'card', id: 'block', 'aria-label': 'Memory block', tabindex: '-1' },
    empty('Pick a workstream to read its memory block.', 'A block is a short list of role-labelled notes, compacted past its limit with a trace of what it folded.'));
  root.append(h('div', { class: 'split narrow-left' }, list, block));

  let stopped = false;
  (async function load() {
    const out = [];
    let cursor = '';
    try {
      do {
        const { data } = await call('GET', '/v1/workstreams', { query: { limit: 200, cursor } });
        out.push(...(data.workstreams || []));
        cursor = data.nextCursor || '';
      } while (cursor && out.length < 2000);
    } catch (e) { if (!stopped) clear(list, failed(e, load)); return; }
    if (stopped) return;
    if (!out.length) {
      clear(list, h('h2', {}, 'Workstreams'), empty('No workstreams that this key can see.', 'Create one with POST /v1/workstreams, then append entries to its block.'));
      return;
    }
    clear(list, h('h2', {}, 'Workstreams'), h('ul', { class: 'plain' }, out.map((w) => h('li', {},
      h('a', { href: `#/workstreams/${encodeURIComponent(w.id)}`, 'aria-current': w.id === args[0] ? 'page' : false }, w.name || w.id), ' ',
      h('small', { class: 'muted' }, where(w))))));
  })();
  if (args[0]) show(args[0]);

  async function show(id) {
    clear(block, loading(`workstream ${id}`));
    try {
      const { data } = await call('GET', `/v1/workstreams/${encodeURIComponent(id)}`);
      if (!stopped) draw(data);
      block.focus();
    } catch (e) { if (!stopped) clear(block, failed(e, () => show(id))); }
  }

  function draw(b) {
    const entries = b.entries || [];
    const full = Math.min(100, Math.round((entries.length / (b.limit || 1)) * 100));
    clear(block,
      h('h2', {}, b.name ? `${b.name} (${b.id})` : b.id),
      h('p', { class: 'tags' }, h('span', { class: 'badge' }, b.visibility || 'shared'), b.agentId ? h('span', { class: 'badge' }, `agent ${b.agentId}`) : null,
        b.roomId ? h('span', { class: 'badge' }, `room ${b.roomId}`) : null, b.worldId ? h('span', { class: 'badge' }, `world ${b.worldId}`) : null,
        b.userId ? h('span', { class: 'badge' }, `user ${b.userId}`) : null),
      h('p', { id: 'block-size' }, `${entries.length} of ${b.limit} entries`, h('small', { class: 'muted' }, ` · version ${b.version} · updated ${time(b.updatedAt)}`)),
      h('div', { class: 'meter', role: 'img', 'aria-label': `${entries.length} of ${b.limit} entries` }, h('span', { style: `width: ${full}%` })),
      entries.length
        ? h('ol', { class: 'entries', id: 'block-entries' }, entries.map(entry))
        : empty('The block is empty.', can('write') ? 'Append a note below.' : 'Entries are appended with POST /v1/workstreams/{id}/entries.'),
      can('write') ? appendForm(b) : null,
      h('h3', {}, `Compaction history (${(b.history || []).length})`),
      h('div', { id: 'block-history' }, (b.history || []).length
        ? h('ol', { class: 'entries' }, [...b.history].reverse().map(compaction))
        : h('p', { class: 'muted' }, `No compaction yet: the block compacts when it passes ${b.limit} entries.`)));
  }

  function appendForm(b) {
    const role = h('input', { id: 'entry-role', name: 'role', required: true, maxlength: 64, placeholder: 'e.g. chief', autocomplete: 'off' });
    const text = h('textarea', { id: 'entry-text', name: 'text', required: true, rows: 2, maxlength: 2000, placeholder: 'a short note' });
    const status = h('div', { id: 'entry-status', role: 'status' });
    return h('form', { class: 'append', 'aria-label': 'Append an entry', onsubmit: async (e) => {
      e.preventDefault();
      const submit = e.target.querySelector('button[type=submit]');
      submit.disabled = true;
      try {
        const { data } = await call('POST', `/v1/workstreams/${encodeURIComponent(b.id)}/entries`, { body: { role: role.value.trim(), text: text.value.trim() } });
        draw(data);
        toast((data.history || []).length > (b.history || []).length ? 'Appended; the block was compacted' : 'Appended');
      } catch (err) { clear(status, failed(err)); submit.disabled = false; }
    } },
    h('div', { class: 'grid' }, field('Role', role), h('div', { class: 'field wide' }, h('label', { for: 'entry-text' }, 'Text'), text)),
    h('div', { class: 'row' }, h('button', { type: 'submit', id: 'entry-submit' }, 'Append')), status);
  }
  return { stop() { stopped = true; } };
}

/** where says in a few words where a workstream lives. */
function where(w) {
  const v = w.visibility || 'shared';
  const on = { room: w.roomId, world: w.worldId, user: w.userId, agent: w.agentId }[v];
  return [on ? `${v} ${on}` : v, w.agentId && v !== 'agent' ? `agent ${w.agentId}` : '', `limit ${w.limit}`].filter(Boolean).join(' · ');
}

/** entry draws one note of a block: its role, text and marks. */
function entry(e) {
  return h('li', { class: 'entry', 'data-seq': e.seq },
    h('p', {}, h('span', { class: 'badge role' }, e.role), ' ', h('span', { class: 'text' }, e.text)),
    h('p', { class: 'muted small' }, `#${e.seq} · importance ${e.importance} · ${time(e.at)}`,
      e.pinned ? [' ', h('span', { class: 'badge pinned' }, 'remember: never folded')] : null,
      e.repeats ? [' ', h('span', { class: 'badge' }, `merged ×${e.repeats}`)] : null,
      e.summary ? [' ', h('span', { class: 'badge summary' }, `summary of ${(e.folded || []).map((s) => '#' + s).join(', ') || 'earlier entries'}`)] : null));
}

/** compaction draws one record: how, the size before and after, what it merged and folded, and its summary. */
function compaction(c) {
  const merged = c.merged || [], replaced = c.replaced || [];
  return h('li', { class: 'compaction' },
    h('p', {}, h('strong', {}, `Version ${c.version}`), ' ', h('span', { class: 'badge' }, c.method),
      h('small', { class: 'muted' }, ` ${c.before} → ${c.after} entries · ${time(c.at)}`)),
    merged.length ? h('div', {}, h('h4', {}, `Merged duplicates (${merged.length})`), h('ul', { class: 'plain' }, merged.map((m) => h('li', {},
      h('span', { class: 'badge role' }, m.entry.role), ' ', m.entry.text, h('small', { class: 'muted' }, ` #${m.entry.seq} into #${m.into}`))))) : null,
    replaced.length ? h('div', {}, h('h4', {}, `Folded (${replaced.length})`), h('ul', { class: 'plain' }, replaced.map((e) => h('li', {},
      h('span', { class: 'badge role' }, e.role), ' ', e.text, h('small', { class: 'muted' }, ` #${e.seq}`))))) : null,
    c.summary ? h('div', {}, h('h4', {}, 'Summary written'), h('p', { class: 'summary-text' }, h('span', { class: 'badge role' }, c.summary.role), ' ', c.summary.text)) : null);
}
