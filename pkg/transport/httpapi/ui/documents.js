// Documents: upload by drag and drop (or a file picker), each document's
// state and fragments, and delete.
import { call, can, canDelete, has } from './api.js';
import { h, clear, time, loading, empty, failed, toast, confirm, short } from './dom.js';

const TEXT = /\.(md|markdown|txt|text|csv|json|html?|xml|ya?ml|log)$/i;

/** render draws the view. */
export function render(root) {
  if (!has('documents')) {
    root.append(empty('This server does not ingest documents.', 'Documents are served by memoryd and the AWS API stage; see the README.'));
    return null;
  }
  const docs = h('section', { class: 'card', id: 'documents', 'aria-label': 'Documents' }, loading('documents'));
  const detail = h('section', { class: 'card', id: 'document-detail', 'aria-label': 'Document', tabindex: '-1' },
    empty('Select a document to see its fragments.'));
  let upload = null;
  if (can('write')) {
    const input = h('input', { type: 'file', id: 'file', multiple: true, class: 'visually-hidden' });
    const status = h('div', { id: 'upload-status', role: 'status' });
    upload = h('div', { class: 'card drop', id: 'drop' },
      h('p', {}, 'Drop files here (Markdown, text, HTML, PDF, DOCX…) or ',
        h('label', { for: 'file', class: 'button', tabindex: '0', onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); input.click(); } } }, 'choose files')),
      input, status);
    input.addEventListener('change', () => send([...input.files], status).then(() => { input.value = ''; }));
    upload.addEventListener('dragover', (e) => { e.preventDefault(); upload.classList.add('over'); });
    upload.addEventListener('dragleave', () => upload.classList.remove('over'));
    upload.addEventListener('drop', (e) => { e.preventDefault(); upload.classList.remove('over'); send([...e.dataTransfer.files], status); });
  }
  root.append(upload || h('p', { class: 'muted' }, 'This key cannot write: uploads need the write grant.'),
    h('div', { class: 'split' }, docs, detail));

  async function send(files, status) {
    for (const f of files) {
      clear(status, loading(f.name));
      try {
        const body = { name: f.name };
        if (TEXT.test(f.name)) body.content = await f.text();
        else body.contentBase64 = await base64(f);
        const { data } = await call('POST', '/v1/documents', { body });
        clear(status, h('p', {}, `${data.name}: ${data.state}`, data.reason ? ` (${data.reason})` : '', ` · ${data.fragments} fragments`));
        toast(`${data.name} ${data.state}`);
      } catch (e) { clear(status, failed(e)); }
    }
    load();
  }

  async function load() {
    try {
      const out = [];
      let cursor = '';
      do {
        const { data } = await call('GET', '/v1/documents', { query: { limit: 200, cursor } });
        out.push(...data.documents);
        cursor = data.nextCursor;
      } while (cursor && out.length < 2000);
      if (!out.length) {
        clear(docs, h('h2', {}, 'Documents'), empty('No documents yet.', can('write') ? 'Drop a file above to index it.' : 'Documents appear once uploaded with a key that can write.'));
        return;
      }
      clear(docs, h('h2', {}, 'Documents'), h('div', { class: 'scroll' }, h('table', { id: 'documents-table' },
        h('thead', {}, h('tr', {}, ['Name', 'State', 'Fragments', 'Size', 'Indexed', ''].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, out.map((d) => h('tr', { 'data-id': d.id },
          h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => open(d) }, d.name), d.agentId ? h('small', { class: 'muted' }, ` agent ${d.agentId}`) : null),
          h('td', {}, h('span', { class: `badge s-${d.state}` }, d.state), d.reason ? h('small', {}, ` ${d.reason}`) : null),
          h('td', { class: 'num' }, d.fragments), h('td', { class: 'num' }, size(d.bytes)), h('td', {}, time(d.finishedAt || d.startedAt)),
          h('td', {}, canDelete(d) ? h('button', { type: 'button', class: 'danger small', 'aria-label': `Delete ${d.name}`, onclick: () => remove(d) }, 'Delete') : null)))))));
    } catch (e) { clear(docs, failed(e, load)); }
  }

  async function open(d) {
    clear(detail, loading('fragments'));
    try {
      const { data } = await call('GET', '/v1/memories', { query: { documentId: d.id, type: 'fragment', limit: 200 } });
      const frs = data.memories.sort((a, b) => (a.position || 0) - (b.position || 0));
      clear(detail, h('h2', {}, d.name), h('p', { class: 'muted' }, `${d.state} · ${d.fragments} fragments · ${size(d.bytes)} · load ${d.loadMs} ms, index ${d.indexMs} ms`),
        frs.length ? h('ol', { class: 'fragments' }, frs.map((f) => h('li', {}, h('a', { href: `#/memories/${encodeURIComponent(f.id)}` }, short(f.content.text, 300)))))
          : empty('No fragments.', d.state === 'indexed' ? 'The document had no text to index.' : 'Wait for indexing to finish, then select it again.'));
      detail.focus();
    } catch (e) { clear(detail, failed(e, () => open(d))); }
  }

  async function remove(d) {
    if (!await confirm(`Delete ${d.name} and its ${d.fragments} fragments?`, 'Delete')) return;
    try {
      await call('DELETE', `/v1/documents/${encodeURIComponent(d.id)}`);
      toast(`${d.name} deleted`);
      clear(detail, empty('Select a document to see its fragments.'));
      load();
    } catch (e) { toast(e.message); }
  }

  load();
  return null;
}

function size(n) { return n >= 1048576 ? (n / 1048576).toFixed(1) + ' MB' : n >= 1024 ? (n / 1024).toFixed(1) + ' kB' : n + ' B'; }

function base64(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}
