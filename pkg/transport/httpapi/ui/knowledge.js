// Knowledge (Structured RAG): entities with their types and facets,
// topics, actions found for a question, a term box with completion hints
// (GET /v1/knowledge/terms), and an entity's source messages.
import { call, has } from './api.js';
import { h, clear, time, loading, empty, failed } from './dom.js';

/** render draws the view. */
export function render(root) {
  if (!has('knowledge')) {
    root.append(empty('This server keeps no knowledge index.', 'Structured RAG needs a store with a term index (the embedded backend has one); see the README.'));
    return null;
  }
  const term = h('input', { id: 'term', type: 'search', list: 'term-hints', autocomplete: 'off', placeholder: 'an entity, topic or word; or ask a question' });
  const hints = h('datalist', { id: 'term-hints' });
  const hintList = h('ul', { class: 'hints', id: 'hint-list', 'aria-label': 'Completions' });
  const answer = h('section', { class: 'card', id: 'knowledge-answer', 'aria-label': 'Answer' },
    empty('Pick an entity or topic, or ask a question above.', 'Entities link to the messages they were found in.'));
  const entities = h('section', { class: 'card', id: 'entities', 'aria-label': 'Entities' }, loading('entities'));
  const topics = h('section', { class: 'card', id: 'topics', 'aria-label': 'Topics' }, loading('topics'));
  const form = h('form', { class: 'card filters', onsubmit: (e) => { e.preventDefault(); ask(term.value); } },
    h('label', { for: 'term' }, 'Term or question'), term, hints, hintList,
    h('div', { class: 'row' }, h('button', { type: 'submit', id: 'ask' }, 'Find')));
  root.append(form, h('div', { class: 'split' }, h('div', { class: 'col' }, entities, topics), answer));

  let timer = 0, seq = 0;
  term.addEventListener('input', () => {
    clearTimeout(timer);
    const prefix = term.value.trim();
    if (!prefix || prefix.includes(' ')) { clear(hints); clear(hintList); return; }
    timer = setTimeout(async () => {
      const my = ++seq;
      try {
        const { data } = await call('GET', '/v1/knowledge/terms', { query: { prefix: prefix.toLowerCase(), limit: 8 } });
        if (my !== seq) return;
        clear(hints, data.terms.map((t) => h('option', { value: t.term }, `${t.count}`)));
        clear(hintList, data.terms.map((t) => h('li', {}, h('button', { type: 'button', class: 'chip', onclick: () => { term.value = t.term; ask(t.term); } }, `${t.term} `, h('small', {}, t.count)))));
      } catch { /* hints are optional; the Find button still works */ }
    }, 150);
  });

  list('entities', entities, 'Entities', (e) => [
    h('button', { type: 'button', class: 'link', onclick: () => entity(e.name) }, e.name), ' ',
    (e.types || []).map((t) => h('span', { class: 'badge' }, t)), ' ',
    (e.facets || []).map((f) => h('span', { class: 'badge facet' }, `${f.name}: ${f.value}`)),
    h('small', { class: 'muted' }, ` ${e.memories} memories · last ${time(e.lastAt)}`)]);
  list('topics', topics, 'Topics', (t) => [
    h('button', { type: 'button', class: 'link', onclick: () => ask(t.name) }, t.name),
    h('small', { class: 'muted' }, ` ${t.memories} memories`)]);

  async function list(kind, el, title, row) {
    let cursor = '';
    const ul = h('ul', { class: 'plain' });
    const more = h('button', { type: 'button', class: 'ghost', hidden: true, onclick: () => page() }, 'More');
    async function page() {
      try {
        const { data } = await call('GET', `/v1/knowledge/${kind}`, { query: { limit: 25, cursor } });
        const items = data[kind] || [];
        if (!cursor) clear(el, h('h2', {}, title), ul, more);
        for (const x of items) ul.append(h('li', {}, row(x)));
        if (!ul.children.length) clear(el, h('h2', {}, title), empty(`No ${kind} yet.`, 'They are found as memories are written: add messages or facts, or upload a document.'));
        cursor = data.nextCursor || '';
        more.hidden = !cursor;
      } catch (e) { clear(el, failed(e, page)); }
    }
    page();
  }

  async function entity(name) {
    await search({ query: { select: { entity: { name } } }, limit: 20 }, `Entity “${name}”`);
  }
  async function ask(text) {
    text = text.trim();
    if (!text) return;
    await search({ text, limit: 20 }, `“${text}”`);
  }
  async function search(body, title) {
    clear(answer, loading('knowledge'));
    try {
      const { data } = await call('POST', '/v1/knowledge/search', { body });
      const ents = data.entities || [], tops = data.topics || [], acts = data.actions || [], mems = data.memories || [];
      clear(answer, h('h2', {}, title),
        !ents.length && !tops.length && !acts.length && !mems.length ? empty('Nothing known matches.', 'Try a term from the completion list, or a shorter question.') : null,
        ents.length ? h('div', {}, h('h3', {}, 'Entities'), ents.map((e) => h('div', { class: 'entity' },
          h('p', {}, h('strong', {}, e.name), ' ', (e.types || []).map((t) => h('span', { class: 'badge' }, t)),
            (e.facets || []).map((f) => h('span', { class: 'badge facet' }, `${f.name}: ${f.value}`)), h('small', { class: 'muted' }, ` ${e.sourceCount} sources`)),
          h('ul', { class: 'sources' }, (e.sources || []).map((s) => h('li', {},
            h('a', { href: `#/memories/${encodeURIComponent(s.memoryId)}` }, s.snippet), ' ', h('span', { class: `badge t-${s.type}` }, s.type),
            s.roomId ? [' ', h('a', { href: `#/conversations/${encodeURIComponent(s.roomId)}` }, `room ${s.roomId}`)] : null,
            s.entityId ? h('small', { class: 'muted' }, ` said by ${s.entityId}`) : null)))))) : null,
        tops.length ? h('div', {}, h('h3', {}, 'Topics'), h('ul', { class: 'plain' }, tops.map((t) => h('li', {}, t.name || JSON.stringify(t))))) : null,
        acts.length ? h('div', {}, h('h3', {}, 'Actions'), h('ul', { class: 'plain' }, acts.map((a) => h('li', {},
          `${a.subject || '?'} ${(a.verbs || []).join(' ')} ${a.object || a.indirectObject || ''}`, a.tense ? h('small', { class: 'muted' }, ` (${a.tense})`) : null)))) : null,
        mems.length ? h('div', {}, h('h3', {}, 'Memories'), h('ul', { class: 'plain' }, mems.map((m) => h('li', {},
          h('a', { href: `#/memories/${encodeURIComponent(m.memory.id)}` }, m.memory.content.text))))) : null);
    } catch (e) { clear(answer, failed(e)); }
  }
  return null;
}
