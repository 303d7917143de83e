"""Errors of the agentmem client: each carries the API's error code."""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Mapping

PROBLEM_TYPE_BASE = "urn:agentmem:problem:"

_STATUS_CODES = {
    400: "invalid",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    412: "precondition_failed",
    413: "too_large",
    429: "rate_limited",
    503: "unavailable",
}


class AgentMemError(Exception):
    """Base of every error the client raises."""


class APIConnectionError(AgentMemError):
    """The server could not be reached, or the connection failed."""


class APITimeoutError(APIConnectionError, TimeoutError):
    """The request did not finish within its timeout."""


class APIError(AgentMemError):
    """An error answered by the API.

    Attributes:
        status: the HTTP status.
        code: the API's error code ("not_found", "invalid", ...).
        message: what went wrong, naming the field at fault for bad input.
        type, title, instance: the RFC 9457 problem members (None in the
            earlier {"error": {"code", "message"}} shape).
        request_id: the request's id in the server's logs.
        retry_after: the server's Retry-After in seconds, or None.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        type: str | None = None,
        title: str | None = None,
        instance: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.type = type
        self.title = title
        self.instance = instance
        self.request_id = request_id
        self.retry_after = retry_after
        text = f"{status} {code}"
        if message:
            text += f": {message}"
        if request_id:
            text += f" (request {request_id})"
        super().__init__(text)

    @property
    def is_stale(self) -> bool:
        """A conditional update refused because the memory moved past the
        If-Match version: 412 precondition_failed, or 409 conflict from
        servers that answered a stale If-Match so."""
        return self.code in ("precondition_failed", "conflict")


class BadRequestError(APIError):
    """400 invalid: the message names the field at fault."""


class AuthenticationError(APIError):
    """401 unauthorized: a missing, malformed or unknown API key."""


class PermissionDeniedError(APIError):
    """403 forbidden, or quota_exceeded."""


class NotFoundError(APIError):
    """404 not_found: absent, or another org's or another agent's."""


class ConflictError(APIError):
    """409 conflict."""


class PreconditionFailedError(APIError):
    """412 precondition_failed: a stale If-Match."""


class RateLimitError(APIError):
    """429 rate_limited; retry_after says when to retry."""


class ServiceUnavailableError(APIError):
    """503 unavailable: nothing was written; retry."""


class InternalServerError(APIError):
    """500 internal, or any other status."""


_CLASSES: dict[str, type[APIError]] = {
    "invalid": BadRequestError,
    "unauthorized": AuthenticationError,
    "forbidden": PermissionDeniedError,
    "quota_exceeded": PermissionDeniedError,
    "not_found": NotFoundError,
    "conflict": ConflictError,
    "precondition_failed": PreconditionFailedError,
    "rate_limited": RateLimitError,
    "unavailable": ServiceUnavailableError,
}


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header (delay seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        secs = float(value)
        return secs if secs >= 0 else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    delta = when - (time.time() if now is None else now)
    return delta if delta > 0 else None


def error_from_response(status: int, headers: Mapping[str, str], body: bytes) -> APIError:
    """The APIError of a response, from either error shape: RFC 9457
    problem+json ({type, title, status, detail, instance, code, requestId})
    or the earlier {"error": {"code", "message"}}."""
    code = message = ""
    fields: dict[str, Any] = {
        "request_id": headers.get("x-request-id"),
        "retry_after": parse_retry_after(headers.get("retry-after")),
    }
    try:
        data = json.loads(body) if body else None
    except ValueError:
        data = None
    if isinstance(data, dict):
        code = str(data.get("code") or "")
        message = str(data.get("detail") or "")
        for name in ("type", "title", "instance"):
            if isinstance(data.get(name), str):
                fields[name] = data[name]
        if data.get("requestId"):
            fields["request_id"] = str(data["requestId"])
        old = data.get("error")
        if isinstance(old, dict):
            code = code or str(old.get("code") or "")
            message = message or str(old.get("message") or "")
        ptype = fields.get("type") or ""
        if not code and ptype.startswith(PROBLEM_TYPE_BASE):
            code = ptype[len(PROBLEM_TYPE_BASE):]
        message = message or fields.get("title") or ""
    elif body:
        text = body.decode("utf-8", "replace").strip()
        if len(text) < 512:
            message = text
    if not code:
        code = _STATUS_CODES.get(status, "internal")
    cls = _CLASSES.get(code, InternalServerError)
    return cls(status, code, message, **fields)
