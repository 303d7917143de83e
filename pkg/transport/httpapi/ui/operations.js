// Operations: the last consolidation report and a button to run one (an
// org-level key with the admin grant only), and the memories by type over
// the last days as an inline SVG chart.
import { call, can, has, orgLevel } from './api.js';
import { h, clear, time, loading, empty, failed, toast } from './dom.js';

const TYPES = ['message', 'fact', 'document', 'fragment', 'description', 'custom'];
const DAYS = 7;
const DAY = 86400000;

/** render draws the view. */
export function render(root) {
  const report = h('section', { class: 'card', id: 'consolidation', 'aria-label': 'Consolidation' });
  const chart = h('section', { class: 'card', id: 'counts', 'aria-label': 'Memories by type' }, loading('counts'));
  root.append(h('div', { class: 'split even' }, report, chart));

  const admin = orgLevel() && can('admin');
  if (!has('consolidation')) clear(report, h('h2', {}, 'Consolidation'), empty('This server runs no consolidation job.'));
  else if (!admin) clear(report, h('h2', {}, 'Consolidation'), empty('Consolidation reports and runs need an org-level key with the admin grant.', 'Sign in with such a key to see them.'));
  else last();

  async function last() {
    clear(report, h('h2', {}, 'Consolidation'), loading('the last report'));
    let rep = null, err = null;
    try { rep = (await call('GET', '/v1/admin/consolidation')).data; } catch (e) { if (e.status !== 404) err = e; }
    const run = h('button', { type: 'button', id: 'consolidate', onclick: async () => {
      run.disabled = true;
      run.textContent = 'Running…';
      try { await call('POST', '/v1/admin/consolidate', { body: {} }); toast('Consolidation finished'); } catch (e) { toast(e.message); }
      last();
    } }, 'Run consolidation now');
    clear(report, h('h2', {}, 'Consolidation'),
      err ? failed(err, last) : rep ? h('dl', { class: 'facts', id: 'report' },
        Object.entries(rep).filter(([k]) => k !== 'orgId').map(([k, v]) => [h('dt', {}, k), h('dd', {}, /At$/.test(k) ? time(v) : typeof v === 'object' ? JSON.stringify(v) : String(v))]))
        : empty('No consolidation has run for this org yet.', 'Run one now: it decays importance, archives what faded, merges duplicates and resolves contradictions.'),
      h('div', { class: 'row' }, run));
  }

  counts();
  async function counts() {
    clear(chart, h('h2', {}, 'Memories by type'), loading('counts'));
    const today = Math.floor(Date.now() / DAY) * DAY;
    const ends = Array.from({ length: DAYS }, (_, i) => today + DAY * (i - DAYS + 2) - 1);
    try {
      const jobs = [];
      for (const t of TYPES) for (const end of ends) jobs.push({ t, end });
      const out = await pool(jobs, 6, async (j) => (await call('GET', '/v1/memories/count', { query: { type: j.t, end: j.end } })).data.count);
      const series = TYPES.map((t, ti) => ({ t, values: ends.map((_, di) => out[ti * ends.length + di]) })).filter((s) => s.values.some((v) => v > 0));
      if (!series.length) { clear(chart, h('h2', {}, 'Memories by type'), empty('No memories yet.', 'Counts appear as memories are written.')); return; }
      clear(chart, h('h2', {}, 'Memories by type'), h('p', { class: 'muted' }, `Memories held at the end of each of the last ${DAYS} days (UTC), archived ones excluded.`),
        svgChart(series, ends), legend(series),
        h('table', { class: 'visually-hidden' }, h('caption', {}, 'Counts by type'), h('tr', {}, h('th', {}, 'type'), ends.map((e) => h('th', {}, day(e)))),
          series.map((s) => h('tr', {}, h('th', {}, s.t), s.values.map((v) => h('td', {}, v))))));
    } catch (e) { clear(chart, h('h2', {}, 'Memories by type'), failed(e, counts)); }
  }
  return null;
}

async function pool(items, n, fn) {
  const out = new Array(items.length);
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) { const k = i++; out[k] = await fn(items[k]); }
  }));
  return out;
}

function day(ms) { return new Date(ms).toISOString().slice(5, 10); }

const NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...kids) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of kids) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

function svgChart(series, ends) {
  const W = 560, H = 240, L = 44, B = 24, T = 10;
  const totals = ends.map((_, i) => series.reduce((a, x) => a + x.values[i], 0));
  const max = Math.max(1, ...totals);
  const bw = (W - L - 10) / ends.length;
  const y = (v) => T + (H - T - B) * (1 - v / max);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': `Stacked bars of memories by type for the last ${ends.length} days; the largest day holds ${max}` });
  for (const f of [0, 0.5, 1]) {
    const v = Math.round(max * f);
    svg.append(s('line', { x1: L, x2: W - 6, y1: y(v), y2: y(v), class: 'grid' }), s('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, v));
  }
  ends.forEach((e, i) => {
    let acc = 0;
    series.forEach((x, si) => {
      const v = x.values[i];
      if (v > 0) {
        svg.append(s('rect', { x: L + i * bw + 4, width: bw - 8, y: y(acc + v), height: y(acc) - y(acc + v), class: `c${si}` }, s('title', {}, `${x.t}: ${v} on ${day(e)}`)));
      }
      acc += v;
    });
    svg.append(s('text', { x: L + i * bw + bw / 2, y: H - 6, 'text-anchor': 'middle' }, day(e)));
  });
  return svg;
}

function legend(series) {
  return h('ul', { class: 'legend' }, series.map((x, i) => h('li', {}, h('span', { class: `swatch c${i}` }), `${x.t} (${x.values[x.values.length - 1]})`)));
}
