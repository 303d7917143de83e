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

const ACTING = 'agentmem.explorer.acting';

/**
 * acting is whom the page's reads serve: {userId, roomId}, either may be
 * empty; {} is the key's own view (an org key's admin view). Kept in this
 * tab's session, as the key.
 */
export function acting() {
  try { return JSON.parse(sessionStorage.getItem(ACTING) || '{}') || {}; } catch { return {}; }
}

/** Sets whom the reads serve; empty fields (or none) stop acting. */
export function setActing({ userId, roomId } = {}) {
  const a = {};
  if (userId) a.userId = userId;
  if (roomId) a.roomId = roomId;
  if (Object.keys(a).length) sessionStorage.setItem(ACTING, JSON.stringify(a)); else sessionStorage.removeItem(ACTING);
}

/**
 * The reads that take the acting fields, and where: in the query, in the
 * body's filters, or at the top of the body. Every read the page makes is
 * here, except reads of one item (a memory, its relations) that a listing
 * led to and documents, which are the org's or an agent's, never a user's.
 * Workstreams are read acting, their list and each block alike: the block
 * is all their view shows, and another user's is 404.
 */
const ACTING_READS = [
  ['GET', /^\/v1\/memories(\/count)?$/, 'query'],
  ['GET', /^\/v1\/knowledge\/(entities|topics|terms)$/, 'query'],
  ['GET', /^\/v1\/export$/, 'query'],
  ['GET', /^\/v1\/workstreams(\/[^/]+)?$/, 'query'],
  ['POST', /^\/v1\/(search|knowledge\/search)$/, 'filters'],
  ['POST', /^\/v1\/context$/, 'body'],
];

/**
 * withActing adds the acting fields to a read's query or body. They win
 * over the view's own roomId: while acting for a room, every read serves
 * that room.
 */
export function withActing(method, path, query, body) {
  const a = acting();
  if (!a.userId && !a.roomId) return { query, body };
  const where = (ACTING_READS.find(([m, re]) => m === method && re.test(path)) || [])[2];
  if (where === 'query') return { query: { ...(query || {}), ...a }, body };
  if (where === 'filters') return { query, body: { ...body, filters: { ...((body && body.filters) || {}), ...a } } };
  if (where === 'body') return { query, body: { ...body, ...a } };
  return { query, body };
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
 * values are left out; a read also carries whom the page acts for
 * (withActing). It resolves to {data, res}.
 */
export async function call(method, path, { body, query, headers } = {}) {
  ({ query, body } = withActing(method, path, query, body));
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

/** Signs out: forgets the key, whom the page acted for, and the caller. */
export function signOut() { setKey(''); setActing(); me = null; }

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
