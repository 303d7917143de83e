// Memories: filters, the list paged on the cursor API as it scrolls, a
// detail pane (content, metadata, scores, relations both ways), and
// create, edit (If-Match), archive and delete as the key allows.
import { call, can, canChange, canDelete, orgLevel, isConflict } from './api.js';
import { h, clear, time, short, loading, empty, failed, toast, confirm, field, select, json } from './dom.js';

/** The memory types, kinds and durabilities of the API. */
export const TYPES = ['', 'fact', 'message', 'document', 'fragment', 'description', 'custom'];
const KINDS = ['', 'fact', 'preference', 'interaction', 'summary', 'user_request', 'entity', 'interest'];
const DURABILITIES = ['', 'core', 'standard', 'ephemeral'];

const PAGE = 30;

/** render draws the view into root; args[0] opens that memory. */
export function render(root, args) {
  const filters = h('form', { class: 'filters', 'aria-label': 'Filters' });
  // Open on wide screens; on a phone the list comes first.
  const filterBox = h('details', { class: 'card', open: window.matchMedia('(min-width: 761px)').matches }, h('summary', {}, 'Filters'), filters);
  const list = h('ul', { class: 'list', id: 'memory-list', 'aria-label': 'Memories' });
  const status = h('div', { class: 'list-status' });
  const more = h('button', { type: 'button', class: 'ghost', hidden: true }, 'Load more');
  const sentinel = h('div', { class: 'sentinel', 'aria-hidden': 'true' });
  const detail = h('section', { class: 'detail card', id: 'detail', 'aria-label': 'Memory detail', tabindex: '-1' },
    empty('Select a memory to see its content, scores and relations.'));
  const creator = can('write') ? createForm((id) => { reload(); open(id); }) : null;

  const inputs = {
    type: select('type', TYPES, ''), kind: select('kind', KINDS, ''),
    roomId: h('input', { name: 'roomId', placeholder: 'room id' }),
    entityId: h('input', { name: 'entityId', placeholder: 'entity id' }),
    sessionId: h('input', { name: 'sessionId', placeholder: 'session id' }),
    durability: select('durability', DURABILITIES, ''),
    start: h('input', { name: 'start', type: 'date' }), end: h('input', { name: 'end', type: 'date' }),
    includeArchived: h('input', { name: 'includeArchived', type: 'checkbox' }),
  };
  if (orgLevel()) inputs.agentId = h('input', { name: 'agentId', placeholder: 'agent id or _org' });
  clear(filters,
    h('div', { class: 'grid' },
      field('Type', inputs.type), field('Kind', inputs.kind), field('Room', inputs.roomId),
      field('Entity', inputs.entityId), field('Session', inputs.sessionId), field('Durability', inputs.durability),
      inputs.agentId ? field('Agent', inputs.agentId) : null,
      field('From', inputs.start), field('To', inputs.end),
      h('div', { class: 'field check' }, inputs.includeArchived, h('label', { for: inputs.includeArchived.id = 'f-archived' }, 'Include archived'))),
    h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Apply filters'),
      h('button', { type: 'reset', class: 'ghost' }, 'Clear')));
  filters.addEventListener('submit', (e) => { e.preventDefault(); reload(); });
  filters.addEventListener('reset', () => setTimeout(reload));

  root.append(h('div', { class: 'split' },
    h('div', { class: 'col' }, creator, filterBox, list, status, more, sentinel),
    detail));

  let cursor = '', busy = false, done = false, gen = 0;
  const query = () => {
    const q = { limit: PAGE };
    for (const [k, el] of Object.entries(inputs)) {
      if (k === 'includeArchived') q[k] = el.checked;
      else if ((k === 'start' || k === 'end') && el.value) {
        q[k] = new Date(el.value + (k === 'start' ? 'T00:00:00Z' : 'T23:59:59.999Z')).toISOString();
      } else q[k] = el.value.trim();
    }
    return q;
  };
  async function next() {
    if (busy || done) return;
    busy = true;
    const g = gen;
    clear(status, loading('memories'));
    try {
      const { data } = await call('GET', '/v1/memories', { query: { ...query(), cursor } });
      if (g !== gen) return;
      for (const m of data.memories) list.append(item(m));
      cursor = data.nextCursor || '';
      done = !cursor;
      clear(status);
      if (!list.children.length) {
        status.append(empty('No memories match these filters.',
          can('write') ? 'Clear the filters, or add a memory above.' : 'Clear the filters, or write memories through the API.'));
      }
      more.hidden = done;
      // A page shorter than the screen leaves the sentinel in view, where
      // the observer will not fire again: load on.
      requestAnimationFrame(() => {
        if (!done && g === gen && sentinel.getBoundingClientRect().top < window.innerHeight) next();
      });
    } catch (e) {
      if (g === gen) clear(status, failed(e, () => { busy = false; next(); }));
    } finally {
      if (g === gen) busy = false;
    }
  }
  function reload() {
    gen++; cursor = ''; done = false; busy = false;
    clear(list);
    next();
  }
  function item(m) {
    const b = h('button', { type: 'button', class: 'item', 'data-id': m.id, onclick: () => open(m.id) },
      h('span', { class: 'tags' }, h('span', { class: `badge t-${m.type}` }, m.type), m.kind && m.kind !== m.type ? h('span', { class: 'badge' }, m.kind) : null,
        m.archived ? h('span', { class: 'badge warn' }, 'archived') : null, m.agentId ? h('span', { class: 'badge' }, 'agent ' + m.agentId) : null),
      h('span', { class: 'text' }, short(m.content && m.content.text)),
      h('span', { class: 'muted' }, time(m.createdAt)));
    return h('li', {}, b);
  }
  more.addEventListener('click', next);
  const io = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) next(); });
  io.observe(sentinel);

  async function open(id) {
    for (const el of list.querySelectorAll('.item')) el.classList.toggle('selected', el.dataset.id === id);
    clear(detail, loading('the memory'));
    if (location.hash !== `#/memories/${encodeURIComponent(id)}`) history.replaceState(null, '', `#/memories/${encodeURIComponent(id)}`);
    try {
      const { data: m } = await call('GET', `/v1/memories/${encodeURIComponent(id)}`);
      let rels = null, relErr = null;
      try { rels = (await call('GET', `/v1/memories/${encodeURIComponent(id)}/relations`)).data.relations; } catch (e) { relErr = e; }
      showDetail(m, rels, relErr);
      detail.focus();
    } catch (e) {
      clear(detail, failed(e, () => open(id)));
    }
  }

  function showDetail(m, rels, relErr) {
    const meta = m.metadata || {};
    const sources = Array.isArray(meta.sources) ? meta.sources : [];
    const link = (id) => h('a', { href: `#/memories/${encodeURIComponent(id)}`, onclick: (e) => { e.preventDefault(); open(id); } }, id);
    const out = (rels || []).filter((r) => r.fromId === m.id);
    const inc = (rels || []).filter((r) => r.toId === m.id);
    const actions = h('div', { class: 'row' });
    if (canChange(m)) {
      actions.append(h('button', { type: 'button', id: 'edit', onclick: () => edit(m) }, 'Edit'));
      if (!m.archived) actions.append(h('button', { type: 'button', class: 'ghost', id: 'archive', onclick: () => archive(m) }, 'Archive'));
    }
    if (canDelete(m)) actions.append(h('button', { type: 'button', class: 'danger', id: 'delete', onclick: () => remove(m) }, 'Delete'));
    clear(detail,
      h('div', { class: 'tags' }, h('span', { class: `badge t-${m.type}` }, m.type), m.kind && m.kind !== m.type ? h('span', { class: 'badge' }, m.kind) : null,
        m.archived ? h('span', { class: 'badge warn' }, 'archived') : null),
      h('h2', { class: 'content', id: 'detail-text' }, m.content.text),
      actions,
      h('dl', { class: 'facts' },
        dt('id', m.id), dt('version', m.version), dt('scope', m.agentId ? 'agent ' + m.agentId : 'org'),
        dt('importance', m.importance), dt('confidence', m.confidence), dt('durability', m.durability),
        dt('accesses', m.accessCount), dt('last accessed', time(m.lastAccessedAt) || 'never'),
        dt('created', time(m.createdAt)), dt('updated', time(m.updatedAt)),
        m.entityId ? dt('entity', m.entityId) : null, m.roomId ? dt('room', h('a', { href: `#/conversations/${encodeURIComponent(m.roomId)}` }, m.roomId)) : null,
        m.sessionId ? dt('session', m.sessionId) : null, m.documentId ? dt('document', m.documentId) : null,
        meta.archivedReason ? dt('archived because', meta.archivedReason) : null),
      meta.decision ? h('p', {}, h('strong', {}, 'Extraction decision: '), decisionText(meta.decision)) : null,
      sources.length ? h('div', {}, h('h3', {}, 'Extracted from'), h('ul', {}, sources.map((s) => h('li', {}, link(s))))) : null,
      h('h3', {}, 'Relations'),
      relErr ? failed(relErr) : (!rels.length ? h('p', { class: 'muted' }, 'No relations in either direction.') :
        h('div', { class: 'rels' },
          h('div', {}, h('h4', {}, `Outgoing (${out.length})`), h('ul', {}, out.map((r) => h('li', {}, `${r.type} → `, link(r.toId), ` (${r.confidence})`)))),
          h('div', {}, h('h4', {}, `Incoming (${inc.length})`), h('ul', {}, inc.map((r) => h('li', {}, link(r.fromId), ` → ${r.type} (${r.confidence})`)))))),
      m.metadata ? h('details', {}, h('summary', {}, 'Metadata'), json(m.metadata)) : null);
  }

  function edit(m) {
    const text = h('textarea', { name: 'text', id: 'edit-text', rows: 4, required: true }, m.content.text);
    const importance = h('input', { type: 'number', name: 'importance', min: 0, max: 1, step: 0.05, value: m.importance });
    const durability = select('durability', DURABILITIES.slice(1), m.durability);
    const msg = h('div', { id: 'edit-status' });
    const form = h('form', { class: 'edit', onsubmit: async (e) => {
      e.preventDefault();
      const patch = {};
      if (text.value !== m.content.text) patch.content = { ...m.content, text: text.value };
      if (Number(importance.value) !== m.importance) patch.importance = Number(importance.value);
      if (durability.value !== m.durability) patch.durability = durability.value;
      if (!Object.keys(patch).length) { clear(msg, h('p', { class: 'hint' }, 'Nothing changed.')); return; }
      clear(msg, loading('the change'));
      try {
        const { data } = await call('PATCH', `/v1/memories/${encodeURIComponent(m.id)}`, { body: patch, headers: { 'If-Match': `"${m.version}"` } });
        toast(`Saved: version ${data.version}`);
        const li = list.querySelector(`.item[data-id="${CSS.escape(m.id)}"]`);
        if (li) li.parentElement.replaceWith(item(data));
        open(m.id);
      } catch (e2) {
        if (isConflict(e2)) {
          clear(msg, h('div', { class: 'state error conflict', role: 'alert' },
            h('p', {}, `Version conflict: this memory was changed since you opened it (you edited version ${m.version}). ${e2.message}`),
            h('p', { class: 'hint' }, 'Your text is kept below. Reload the latest version, then apply your change again.'),
            h('button', { type: 'button', onclick: () => open(m.id) }, 'Reload latest')));
        } else clear(msg, failed(e2));
      }
    } },
    field('Text', text), h('div', { class: 'grid' }, field('Importance (0–1)', importance), field('Durability', durability)),
    h('div', { class: 'row' }, h('button', { type: 'submit', id: 'save' }, 'Save'),
      h('button', { type: 'button', class: 'ghost', onclick: () => open(m.id) }, 'Cancel')),
    msg);
    const actions = detail.querySelector('.row');
    actions.replaceWith(form);
    text.focus();
  }

  async function archive(m) {
    if (!await confirm(`Archive this memory? It leaves search and prompt context, and stays readable here.`, 'Archive')) return;
    try {
      await call('POST', `/v1/memories/${encodeURIComponent(m.id)}/archive`, { body: { reason: 'archived in the explorer' } });
      toast('Archived');
      open(m.id);
    } catch (e) { toast(e.message); }
  }

  async function remove(m) {
    if (!await confirm(`Delete this memory for good? "${short(m.content.text, 80)}" and everything derived from it (index entries, knowledge) are removed.`, 'Delete')) return;
    try {
      await call('DELETE', `/v1/memories/${encodeURIComponent(m.id)}`);
      toast('Deleted');
      const li = list.querySelector(`.item[data-id="${CSS.escape(m.id)}"]`);
      if (li) li.parentElement.remove();
      clear(detail, empty('The memory was deleted.', 'Select another memory in the list.'));
      history.replaceState(null, '', '#/memories');
    } catch (e) { toast(e.message); }
  }

  reload();
  if (args[0]) open(args[0]);
  return { stop: () => { io.disconnect(); gen++; } };
}

function dt(k, v) { return [h('dt', {}, k), h('dd', {}, v === undefined || v === null || v === '' ? '—' : v)]; }

/** decisionText describes an extraction decision. */
export function decisionText(d) {
  const scores = d.scores ? Object.entries(d.scores).map(([k, v]) => `${k} ${v}`).join(', ') : '';
  return `${d.kind}${d.target ? ` of ${d.target}` : ''}${d.targetText ? ` (“${short(d.targetText, 80)}”)` : ''} by rule ${d.rule}${scores ? ` (${scores})` : ''}`;
}

function createForm(created) {
  const text = h('textarea', { name: 'text', id: 'new-text', rows: 2, required: true, placeholder: 'What should be remembered?' });
  const type = select('type', TYPES.slice(1).filter((t) => t !== 'document' && t !== 'fragment'), 'fact');
  const entity = h('input', { name: 'entityId', placeholder: 'optional' });
  const room = h('input', { name: 'roomId', placeholder: 'optional' });
  const msg = h('div', {});
  const form = h('form', { class: 'card create', id: 'create', onsubmit: async (e) => {
    e.preventDefault();
    const body = { type: type.value, content: { text: text.value } };
    if (entity.value.trim()) body.entityId = entity.value.trim();
    if (room.value.trim()) body.roomId = room.value.trim();
    clear(msg, loading('the new memory'));
    try {
      const { data } = await call('POST', '/v1/memories', { body });
      clear(msg);
      toast(data.duplicate ? 'Already remembered: opened the existing memory' : 'Memory added');
      form.reset();
      form.querySelector('details').open = false;
      created(data.id);
    } catch (e2) { clear(msg, failed(e2)); }
  } },
  h('details', {}, h('summary', {}, 'Add a memory'),
    field('Text', text),
    h('div', { class: 'grid' }, field('Type', type), field('Entity', entity), field('Room', room)),
    h('div', { class: 'row' }, h('button', { type: 'submit', id: 'create-submit' }, 'Add memory')), msg));
  return form;
}
