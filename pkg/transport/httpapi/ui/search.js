// Search playground: a query and mode, each result's score and rank in
// every list (keyword, semantic, knowledge, rerank), and the prompt
// context for a token budget, section by section.
import { call } from './api.js';
import { h, clear, short, loading, empty, failed, field, select } from './dom.js';

const MODES = [['full', 'full (every list, reranked)'], ['hybrid', 'hybrid (keyword + semantic)'], ['semantic', 'semantic'], ['keyword', 'keyword'], ['knowledge', 'knowledge (Structured RAG)']];

/** render draws the view. */
export function render(root) {
  const q = h('input', { name: 'query', id: 'search-query', type: 'search', required: true, placeholder: 'e.g. where does Priya work?' });
  const mode = select('mode', MODES, 'hybrid');
  const k = h('input', { name: 'k', type: 'number', min: 1, max: 100, value: 10 });
  const budget = h('input', { name: 'budget', type: 'number', min: 50, max: 32000, step: 50, value: 600 });
  const results = h('section', { class: 'card', id: 'search-results', 'aria-label': 'Results' },
    empty('Type a query and press Search.', 'Each result shows its score and rank in every list the mode runs.'));
  const ctx = h('section', { class: 'card', id: 'context', 'aria-label': 'Prompt context' },
    empty('The prompt context for the same query appears here.'));
  const form = h('form', { class: 'card filters', onsubmit: (e) => { e.preventDefault(); run(); } },
    h('div', { class: 'grid' }, h('div', { class: 'field wide' }, h('label', { for: 'search-query' }, 'Query'), q),
      field('Mode', mode), field('Results (k)', k), field('Context budget (tokens)', budget)),
    h('div', { class: 'row' }, h('button', { type: 'submit', id: 'search-submit' }, 'Search')));
  root.append(form, h('div', { class: 'split even' }, results, ctx));
  q.focus();

  async function run() {
    clear(results, loading('results'));
    clear(ctx, loading('the prompt context'));
    const body = { query: q.value, mode: mode.value, k: Number(k.value) || 10 };
    call('POST', '/v1/search', { body }).then(({ data }) => showResults(data), (e) => clear(results, failed(e, run)));
    call('POST', '/v1/context', { body: { query: q.value, budgetTokens: Number(budget.value) || 600 } })
      .then(({ data }) => showContext(data), (e) => clear(ctx, failed(e, run)));
  }

  function showResults(data) {
    const lists = [...(data.lists || [])];
    if (data.reranked && !lists.includes('rerank')) lists.push('rerank');
    if (!data.results.length) {
      clear(results, empty(`No memory matched in ${data.mode} mode.`, 'Try other words, or the semantic mode, which matches meaning rather than words.'));
      return;
    }
    const head = h('tr', {}, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'Memory'), h('th', { scope: 'col' }, 'Fused'),
      lists.map((l) => h('th', { scope: 'col' }, l)));
    const rows = data.results.map((r, i) => h('tr', {},
      h('td', {}, i + 1),
      h('td', {}, h('a', { href: `#/memories/${encodeURIComponent(r.memory.id)}` }, short(r.memory.content.text, 120)),
        ' ', h('span', { class: `badge t-${r.memory.type}` }, r.memory.type)),
      h('td', { class: 'num' }, fmt(r.score)),
      lists.map((l) => {
        const s = (r.scores || {})[l] || r[l];
        return h('td', { class: 'num' }, s ? [fmt(s.score), h('small', {}, ` #${s.rank}`)] : h('span', { class: 'muted' }, '—'));
      })));
    clear(results,
      h('p', { class: 'muted' }, `${data.results.length} results · mode ${data.mode} · lists ${lists.join(', ') || 'none'} · ${data.tookMs} ms`,
        data.rerankError ? h('span', { class: 'warn' }, ` · rerank failed: ${data.rerankError}`) : null),
      h('div', { class: 'scroll' }, h('table', { id: 'results-table' }, h('thead', {}, head), h('tbody', {}, rows))));
  }

  function showContext(data) {
    clear(ctx,
      h('h2', {}, 'Prompt context'),
      h('p', { class: 'muted' }, `${data.usedTokens} of ${data.budgetTokens} tokens used`),
      h('div', { class: 'meter', role: 'img', 'aria-label': `${data.usedTokens} of ${data.budgetTokens} tokens` },
        h('span', { style: `width:${Math.min(100, 100 * data.usedTokens / Math.max(1, data.budgetTokens)).toFixed(1)}%` })),
      h('table', { id: 'sections' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Section'), h('th', { scope: 'col' }, 'Tokens'), h('th', { scope: 'col' }, 'Items'))),
        h('tbody', {}, (data.sections || []).map((s) => h('tr', {}, h('td', {}, s.name), h('td', { class: 'num' }, s.tokens),
          h('td', {}, (s.items || []).length ? h('ul', { class: 'plain' }, s.items.map((it) => h('li', {},
            it.id ? h('a', { href: `#/memories/${encodeURIComponent(it.id)}` }, it.type || it.id) : `${it.kind}: ${it.name}`,
            h('small', {}, ` ${it.tokens} tok`)))) : h('span', { class: 'muted' }, 'empty')))))),
      h('details', {}, h('summary', {}, 'The context text'), h('pre', { class: 'json' }, data.context || '')));
  }
}

function fmt(x) { return typeof x === 'number' ? (Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(3)) : '—'; }
