// Errors of the client: each API error carries the API's code.
import type { LegacyErrorBody, Problem } from "./types.js";

/** Prefix of a problem type naming a code. */
export const PROBLEM_TYPE_BASE = "urn:agentmem:problem:";

const STATUS_CODES: Record<number, string> = {
  400: "invalid", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
  409: "conflict", 412: "precondition_failed", 413: "too_large", 429: "rate_limited", 503: "unavailable",
};

/** The base of every error the client throws. */
export class AgentMemError extends Error {
  override name = "AgentMemError";
}

/** The server could not be reached, or the connection failed. */
export class ConnectionError extends AgentMemError {
  override name = "ConnectionError";
}

/** The request did not finish within the client's timeout. */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
}

/** Fields of an APIError besides status, code and message. */
export interface APIErrorDetails {
  type?: string;
  title?: string;
  instance?: string;
  requestId?: string;
  /** The server's Retry-After, in milliseconds. */
  retryAfterMs?: number;
}

/** An error answered by the API, from either error shape. */
export class APIError extends AgentMemError {
  override name = "APIError";
  readonly type?: string;
  readonly title?: string;
  readonly instance?: string;
  readonly requestId?: string;
  readonly retryAfterMs?: number;

  constructor(readonly status: number, readonly code: string, readonly detail: string, d: APIErrorDetails = {}) {
    super(`${status} ${code}${detail ? ": " + detail : ""}${d.requestId ? ` (request ${d.requestId})` : ""}`);
    Object.assign(this, d);
  }

  /** A conditional update refused over a stale If-Match: 412, or 409 from servers that answered so. */
  get isStale(): boolean {
    return this.code === "precondition_failed" || this.code === "conflict";
  }
}

/** 400 invalid: the detail names the field at fault. */
export class BadRequestError extends APIError { override name = "BadRequestError"; }
/** 401 unauthorized. */
export class AuthenticationError extends APIError { override name = "AuthenticationError"; }
/** 403 forbidden or quota_exceeded. */
export class PermissionDeniedError extends APIError { override name = "PermissionDeniedError"; }
/** 404 not_found: absent, or another org's or agent's. */
export class NotFoundError extends APIError { override name = "NotFoundError"; }
/** 409 conflict. */
export class ConflictError extends APIError { override name = "ConflictError"; }
/** 412 precondition_failed. */
export class PreconditionFailedError extends APIError { override name = "PreconditionFailedError"; }
/** 429 rate_limited; retryAfterMs says when to retry. */
export class RateLimitError extends APIError { override name = "RateLimitError"; }
/** 503 unavailable: nothing was written. */
export class ServiceUnavailableError extends APIError { override name = "ServiceUnavailableError"; }
/** 500 internal, or any other status. */
export class InternalServerError extends APIError { override name = "InternalServerError"; }

const CLASSES: Record<string, typeof APIError> = {
  invalid: BadRequestError, unauthorized: AuthenticationError, forbidden: PermissionDeniedError,
  quota_exceeded: PermissionDeniedError, not_found: NotFoundError, conflict: ConflictError,
  precondition_failed: PreconditionFailedError, rate_limited: RateLimitError, unavailable: ServiceUnavailableError,
};

/** Milliseconds from a Retry-After header (seconds or an HTTP date). */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  if (!Number.isNaN(t) && t > now) return t - now;
  return undefined;
}

/** The APIError of a response: RFC 9457 problem+json, or the earlier {"error": {code, message}}. */
export function errorFromResponse(status: number, headers: Headers, body: string): APIError {
  let code = "";
  let detail = "";
  const d: APIErrorDetails = {
    requestId: headers.get("x-request-id") ?? undefined,
    retryAfterMs: parseRetryAfter(headers.get("retry-after")),
  };
  let data: unknown;
  try {
    data = body ? JSON.parse(body) : undefined;
  } catch {
    data = undefined;
  }
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const p = data as Problem & Partial<LegacyErrorBody>;
    code = typeof p.code === "string" ? p.code : "";
    detail = typeof p.detail === "string" ? p.detail : "";
    if (typeof p.type === "string") d.type = p.type;
    if (typeof p.title === "string") d.title = p.title;
    if (typeof p.instance === "string") d.instance = p.instance;
    if (typeof p.requestId === "string" && p.requestId) d.requestId = p.requestId;
    if (p.error && typeof p.error === "object") {
      code ||= String(p.error.code ?? "");
      detail ||= String(p.error.message ?? "");
    }
    if (!code && d.type?.startsWith(PROBLEM_TYPE_BASE)) code = d.type.slice(PROBLEM_TYPE_BASE.length);
    detail ||= d.title ?? "";
  } else if (body && body.length < 512) {
    detail = body.trim();
  }
  code ||= STATUS_CODES[status] ?? "internal";
  const Cls = CLASSES[code] ?? InternalServerError;
  return new Cls(status, code, detail, d);
}
