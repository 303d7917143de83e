// Small DOM helpers: elements from tags, attributes and children (text is
// always set as text, never parsed as HTML), and the shared states.

/** h builds an element; attrs "on…" add listeners, "class" sets className, false/null attrs are skipped. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'value') el.value = v;
    else if (k === 'style') el.style.cssText = v;
    else if (k === 'checked') el.checked = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  add(el, children);
  return el;
}

function add(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) add(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** clear empties el and appends children. */
export function clear(el, ...children) {
  el.replaceChildren();
  add(el, children);
  return el;
}

/** time formats milliseconds since the epoch, "" for none. */
export function time(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** short cuts text to n characters. */
export function short(text, n = 160) {
  const t = (text || '').replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

/** loading, empty and failed are the states every view shows in place of its content. */
export function loading(what) { return h('p', { class: 'state loading', role: 'status' }, `Loading ${what}…`); }
export function empty(text, hint) {
  return h('div', { class: 'state empty' }, h('p', {}, text), hint ? h('p', { class: 'hint' }, hint) : null);
}
export function failed(err, retry) {
  const status = err && err.status ? ` (HTTP ${err.status}${err.code ? ', ' + err.code : ''})` : '';
  return h('div', { class: 'state error', role: 'alert' },
    h('p', {}, (err && err.message ? err.message : String(err)) + status),
    h('p', { class: 'hint' }, hintFor(err)),
    retry ? h('button', { type: 'button', onclick: retry }, 'Retry') : null);
}

function hintFor(err) {
  switch (err && err.status) {
    case 0: return 'Start the server (make run) and retry.';
    case 400: return 'Correct the field named above and try again.';
    case 401: return 'The key was not accepted: sign out and sign in with a valid key.';
    case 403: return 'This key is not allowed to do that; use a key with the grant named above.';
    case 404: return 'It is gone or not visible to this key; go back to the list and reload.';
    case 409: case 412: return 'Someone changed it meanwhile: reload it and apply your change again.';
    case 429: return 'Too many requests for this org; wait a moment and retry.';
    default: return 'Retry; if it keeps failing, the server log names the request id.';
  }
}

let toastTimer = 0;
/** toast shows a short status message. */
export function toast(text) {
  const el = document.getElementById('toast');
  el.textContent = text;
  el.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove('show'), 4000);
}

// settle answers the last question asked with the dialog, until its close
// event arrives.
let settle = null;

/** confirm asks with the page's dialog; resolves true when confirmed. */
export function confirm(text, action = 'Confirm') {
  const dlg = document.getElementById('confirm');
  // The close event of the question before is dispatched after its dialog
  // closed, and can arrive once the dialog is open again: that question is
  // answered here, while returnValue still holds its answer, and the
  // stale event is ignored below (it answered "no" to a delete that the
  // user then confirmed, and the confirmation was lost).
  if (settle) settle();
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = action;
  dlg.returnValue = '';
  dlg.showModal();
  return new Promise((resolve) => {
    const answer = () => {
      dlg.removeEventListener('close', onClose);
      if (settle === answer) settle = null;
      resolve(dlg.returnValue === 'ok');
    };
    const onClose = () => { if (!dlg.open) answer(); };
    settle = answer;
    dlg.addEventListener('close', onClose);
  });
}

/** field wraps a control with its label. */
export function field(label, control, hint) {
  const id = control.id || ('f-' + Math.random().toString(36).slice(2, 9));
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('small', {}, hint) : null);
}

/** select builds a select of options ([value, label] or value). */
export function select(name, options, value) {
  return h('select', { name }, options.map((o) => {
    const [v, l] = Array.isArray(o) ? o : [o, o || 'any'];
    return h('option', { value: v, selected: v === value }, l);
  }));
}

/** pre shows JSON. */
export function json(v) { return h('pre', { class: 'json' }, JSON.stringify(v, null, 2)); }
