// The API client: every request carries the signed-in key, and errors of
// both shapes the API has used ({"error":{code,message}} and RFC 9457
// problem+json {type,title,status,detail,code}) become an APIError.

const KEY = 'agentmem.explorer.key';

/**
 * The path the API is served under: what precedes /ui/ in the page's path,
 * "" from memoryd, "/dev" on an API Gateway stage's URL.
 */
export const BASE = (location.pathname.match(/^(.*)\/ui\//) || ['', ''])[1];

/** The key of this browser session, or "" before sign-in. */
export function key() { return sessionStorage.getItem(KEY) || ''; }

/** Keeps k for this browser tab's session only (never localStorage). */
export function setKey(k) {
  if (k) sessionStorage.setItem(KEY, k); else sessionStorage.removeItem(KEY);
}

/** An error answered by the API, with its HTTP status and error code. */
export class APIError extends Error {
  constructor(status, code, message) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.code = code || '';
  }
}

/** Reads an error body in either format. */
export function errorOf(status, data, text) {
  if (data && typeof data.error === 'object' && data.error) {
    return new APIError(status, data.error.code, data.error.message);
  }
  if (data && (data.detail || data.title)) {
    return new APIError(status, data.code, data.detail || data.title);
  }
  return new APIError(status, '', text || `HTTP ${status}`);
}

/** A stale If-Match: 409 conflict before, 412 precondition failed now. */
export function isConflict(e) {
  return e instanceof APIError && (e.status === 409 || e.status === 412);
}

/**
 * call sends method path with the key; body is JSON-encoded; query's empty
 * values are left out. It resolves to {data, res}.
 */
export async function call(method, path, { body, query, headers } = {}) {
  const h = { Authorization: `Bearer ${key()}`, ...(headers || {}) };
  let url = BASE + path;
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && v !== null && v !== '' && v !== false) q.set(k, String(v));
    }
    const s = q.toString();
    if (s) url += (url.includes('?') ? '&' : '?') + s;
  }
  if (body !== undefined) h['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new APIError(0, 'network', 'The server could not be reached. Check that memoryd is running, then retry.');
  }
  if (res.status === 204) return { data: null, res };
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) throw errorOf(res.status, data, text);
  return { data, res };
}

/** The caller: {orgId, agentId, grants, features} from GET /v1/whoami. */
export let me = null;

/** Loads me for the current key. */
export async function whoami() {
  const { data } = await call('GET', '/v1/whoami');
  me = data;
  return me;
}

/** Signs out: forgets the key and the caller. */
export function signOut() { setKey(''); me = null; }

/** can reports whether the key holds grant ("read", "write", "delete", "delete:org", "admin"). */
export function can(grant) { return !!me && (me.grants || []).includes(grant); }

/** has reports whether the server serves an optional feature. */
export function has(feature) { return !!me && !!(me.features || {})[feature]; }

/** orgLevel reports whether the key is bound to no agent. */
export function orgLevel() { return !!me && !me.agentId; }

/** canChange reports whether the key may edit or archive memory m: its own agent's, or any with an org-level key. */
export function canChange(m) { return can('write') && (orgLevel() || m.agentId === me.agentId); }

/** canDelete mirrors the API's delete rules for memory (or document) m. */
export function canDelete(m) {
  if (!can('delete')) return false;
  if (orgLevel()) return true;
  if (m.agentId) return m.agentId === me.agentId;
  return can('delete:org');
}
