"""The sync and async clients, sharing how requests are built and read."""

from __future__ import annotations

import asyncio
import builtins
import base64
import json
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from urllib.parse import quote

import httpx

from ._errors import APIConnectionError, APIError, APITimeoutError, error_from_response
from ._types import (
    APIKey,
    AuditPage,
    ChatMessage,
    ConsolidationReport,
    CreatedKey,
    ExtractionSettings,
    ForgetReport,
    ImportReport,
    MemoryHistory,
    StoredSettings,
    Usage,
    Whoami,
    CreateResult,
    Document,
    DocumentPage,
    Entity,
    EntityPage,
    Filters,
    KnowledgeListItem,
    KnowledgePrefetchResponse,
    KnowledgeQuery,
    KnowledgeSearchResponse,
    Memory,
    MemoryPage,
    MessagesResult,
    NewEntity,
    NewMemory,
    NewRoom,
    NewWorld,
    NewWorkstream,
    Participants,
    Patch,
    PromptContext,
    Room,
    RoomPage,
    SearchResponse,
    TermHint,
    Relation,
    Token,
    World,
    WorldPage,
    WorkstreamBlock,
    WorkstreamList,
)

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 3
DEFAULT_RETRY_BASE = 0.2
DEFAULT_RETRY_MAX = 5.0
DEFAULT_MAX_RETRY_AFTER = 30.0

# The list filters as keyword arguments, and their query parameters.
# room_id, world_id and user_id also say whom the read serves (the acting
# fields): it then sees only what that room, world and user may see.
_FILTER_PARAMS = {
    "type": "type",
    "kind": "kind",
    "room_id": "roomId",
    "world_id": "worldId",
    "user_id": "userId",
    "session_key": "sessionKey",
    "entity_id": "entityId",
    "session_id": "sessionId",
    "agent_id": "agentId",
    "document_id": "documentId",
    "durability": "durability",
    "start": "start",
    "end": "end",
    "include_archived": "includeArchived",
}


def _filter_params(filters: Mapping[str, Any], params: Mapping[str, str] = _FILTER_PARAMS) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in filters.items():
        if name == "metadata" and value is not None:
            # metadata={"KEY": "v"} is metadata.KEY=v; a list is the `in` form (the parameter repeated).
            for k, v in value.items():
                vals = v if isinstance(v, (list, tuple)) else [v]
                out["metadata." + k] = [("true" if x else "false") if isinstance(x, bool) else str(x) for x in vals]
            continue
        if name not in params:
            raise TypeError(f"unknown filter {name!r}; one of {', '.join(params)}")
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            value = ",".join(value)
        out[params[name]] = str(value)
    return out


# The knowledge listings' filters: the memories' type is memoryType there
# (type is the entity type).
_KNOWLEDGE_PARAMS = {**_FILTER_PARAMS, "type": "memoryType", "entity_type": "type", "prefix": "prefix", "name": "name",
                     "limit": "limit", "cursor": "cursor"}

# Whom a read of workstreams serves: a block of a user, room or world audience is seen only by a
# read that serves it.
_ACTING_PARAMS = {"user_id": "userId", "room_id": "roomId", "world_id": "worldId"}

# The export's options.
_EXPORT_PARAMS = {"agent_id": "agentId", "room_id": "roomId", "world_id": "worldId", "user_id": "userId",
                  "embeddings": "embeddings"}


def _export_lines(r: httpx.Response) -> list[dict[str, Any]]:
    """An export's NDJSON lines; a line of kind error (the stream was cut
    short) raises its APIError."""
    out: list[dict[str, Any]] = []
    for line in r.text.splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec.get("kind") == "error":
            raise error_from_response(r.status_code, {}, json.dumps(
                {"code": rec.get("code"), "detail": rec.get("message")}).encode())
        out.append(rec)
    return out


def _seg(s: str) -> str:
    return quote(s, safe="")


def _drop_none(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


@dataclass
class _Request:
    """One API call: what to send, and how to read a 2xx answer."""

    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    # content, when set, is sent as the body as it is (an import's NDJSON), instead of body as JSON.
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    parse: Callable[[httpx.Response], Any] = lambda r: r.json() if r.content else None
    # write marks a POST that stores something: it carries an
    # Idempotency-Key (generated unless given), so a retry cannot store it
    # twice; read-only POSTs (search, context) carry one only when given.
    write: bool = False


def _memory_and_created(r: httpx.Response) -> tuple[Memory, bool]:
    """A put's answer: the memory, bare or as {"memory": ...}, or a create
    result; created is a 201, or the body's "created"."""
    data = r.json()
    created = r.status_code == 201
    if isinstance(data, dict) and isinstance(data.get("created"), bool):
        created = data["created"]
    if isinstance(data, dict) and isinstance(data.get("memory"), dict):
        data = data["memory"]
    return data, created


def _shown(m: Mapping[str, Any]) -> bool:
    """Whether a put's answer showed the memory, not only its id."""
    return "content" in m or "contentHash" in m


class _Requests:
    """Builds each method's request; both clients send them."""

    @staticmethod
    def create(memory: NewMemory | str, idempotency_key: str | None) -> _Request:
        body = {"content": {"text": memory}} if isinstance(memory, str) else memory
        return _Request("POST", "/v1/memories", body=body, headers=_idem(idempotency_key), write=True)

    @staticmethod
    def create_batch(memories: Sequence[NewMemory], idempotency_key: str | None) -> _Request:
        return _Request("POST", "/v1/memories", body={"memories": list(memories)}, headers=_idem(idempotency_key),
                        parse=lambda r: r.json()["memories"], write=True)

    @staticmethod
    def put_by_key(key: str, memory: NewMemory | str) -> _Request:
        if not key:
            raise ValueError("key: required")
        body = {"content": {"text": memory}} if isinstance(memory, str) else memory
        return _Request("PUT", "/v1/memories/by-key/" + _seg(key), body=body, parse=_memory_and_created)

    @staticmethod
    def get_by_key(key: str) -> _Request:
        if not key:
            raise ValueError("key: required")
        return _Request("GET", "/v1/memories/by-key/" + _seg(key))

    @staticmethod
    def delete_by_key(key: str) -> _Request:
        if not key:
            raise ValueError("key: required")
        return _Request("DELETE", "/v1/memories/by-key/" + _seg(key))

    @staticmethod
    def get(memory_id: str) -> _Request:
        return _Request("GET", "/v1/memories/" + _seg(memory_id))

    @staticmethod
    def update(memory_id: str, patch: Patch, if_match: int | None) -> _Request:
        headers = {"If-Match": f'"{if_match}"'} if if_match else {}
        return _Request("PATCH", "/v1/memories/" + _seg(memory_id), body=patch, headers=headers)

    @staticmethod
    def delete(memory_id: str) -> _Request:
        return _Request("DELETE", "/v1/memories/" + _seg(memory_id))

    @staticmethod
    def delete_where(filters: Mapping[str, Any]) -> _Request:
        return _Request("DELETE", "/v1/memories", params=_filter_params(filters), parse=lambda r: r.json()["deleted"])

    @staticmethod
    def list(limit: int | None, cursor: str | None, filters: Mapping[str, Any]) -> _Request:
        params = _filter_params(filters)
        if limit is not None:
            params["limit"] = str(limit)
        if cursor:
            params["cursor"] = cursor
        return _Request("GET", "/v1/memories", params=params)

    @staticmethod
    def count(filters: Mapping[str, Any]) -> _Request:
        return _Request("GET", "/v1/memories/count", params=_filter_params(filters), parse=lambda r: r.json()["count"])

    @staticmethod
    def search(query: str, **fields: Any) -> _Request:
        body = _drop_none({"query": query, "mode": fields["mode"], "lists": fields["lists"], "k": fields["k"],
                           "threshold": fields["threshold"], "filters": fields["filters"],
                           "expandRelations": fields["expand_relations"], "rerank": fields["rerank"]})
        return _Request("POST", "/v1/search", body=body)

    @staticmethod
    def context(query: str, room_id: str | None, user_id: str | None, world_id: str | None,
                budget_tokens: int | None, more: Mapping[str, Any]) -> _Request:
        providers = more.get("providers")
        return _Request("POST", "/v1/context", body=_drop_none({
            "query": query, "roomId": room_id, "userId": user_id, "worldId": world_id, "budgetTokens": budget_tokens,
            "workstreamId": more.get("workstream_id"), "providers": None if providers is None else list(providers),
            "reserveTokens": more.get("reserve_tokens"), "messageId": more.get("message_id")}))

    # Agent state: workstreams (memory blocks), relations, restore.
    @staticmethod
    def create_workstream(workstream: NewWorkstream, idempotency_key: str | None) -> _Request:
        return _Request("POST", "/v1/workstreams", body=dict(workstream), headers=_idem(idempotency_key), write=True)

    @staticmethod
    def append_entry(workstream_id: str, role: str, text: str, importance: float | None,
                     idempotency_key: str | None) -> _Request:
        return _Request("POST", "/v1/workstreams/" + _seg(workstream_id) + "/entries",
                        body=_drop_none({"role": role, "text": text, "importance": importance}),
                        headers=_idem(idempotency_key), write=True)

    @staticmethod
    def create_relation(from_id: str, to_id: str, type: str, confidence: float | None,
                        idempotency_key: str | None) -> _Request:
        return _Request("POST", "/v1/relations", body=_drop_none({"fromId": from_id, "toId": to_id, "type": type,
                                                                  "confidence": confidence}),
                        headers=_idem(idempotency_key), write=True)

    @staticmethod
    def relations(memory_id: str) -> _Request:
        return _Request("GET", "/v1/memories/" + _seg(memory_id) + "/relations", parse=lambda r: r.json()["relations"])

    @staticmethod
    def archive(memory_id: str, reason: str | None) -> _Request:
        return _Request("POST", "/v1/memories/" + _seg(memory_id) + "/archive", body=_drop_none({"reason": reason}))

    @staticmethod
    def restore(memory_id: str) -> _Request:
        return _Request("POST", "/v1/memories/" + _seg(memory_id) + "/restore")

    @staticmethod
    def knowledge_search(query: Mapping[str, Any] | None, text: str | None, limit: int | None,
                         filters: Filters | None) -> _Request:
        if (query is None) == (text is None):
            raise ValueError("knowledge_search: give query (an expression) or text (a question), exactly one")
        return _Request("POST", "/v1/knowledge/search",
                        body=_drop_none({"query": query, "text": text, "limit": limit, "filters": filters}))

    @staticmethod
    def knowledge_prefetch(text: str, limit: int | None, term_limit: int | None, filters: Filters | None) -> _Request:
        return _Request("POST", "/v1/knowledge/prefetch",
                        body=_drop_none({"text": text, "limit": limit, "termLimit": term_limit, "filters": filters}))

    @staticmethod
    def add_messages(messages: Sequence[NewMemory | ChatMessage], idempotency_key: str | None,
                     shared: Mapping[str, Any]) -> _Request:
        body = {"messages": list(messages), **_drop_none({
            "roomId": shared["room_id"], "worldId": shared["world_id"], "userId": shared["user_id"],
            "sessionId": shared["session_id"], "agentId": shared["agent_id"], "scope": shared["scope"]})}
        return _Request("POST", "/v1/messages", body=body, headers=_idem(idempotency_key), write=True)

    @staticmethod
    def knowledge_list(what: str, filters: Mapping[str, Any]) -> _Request:
        return _Request("GET", "/v1/knowledge/" + what, params=_filter_params(filters, _KNOWLEDGE_PARAMS))

    @staticmethod
    def knowledge_status() -> _Request:
        return _Request("GET", "/v1/knowledge/status")

    @staticmethod
    def export(opts: Mapping[str, Any]) -> _Request:
        return _Request("GET", "/v1/export", params=_filter_params(opts, _EXPORT_PARAMS), parse=_export_lines)

    @staticmethod
    def create_token(user_id: str, room_id: str | None, world_id: str | None, grants: Sequence[str] | None,
                     ttl_seconds: int | None) -> _Request:
        if not user_id:
            raise ValueError("user_id: required")
        return _Request("POST", "/v1/tokens", body=_drop_none({"userId": user_id, "roomId": room_id, "worldId": world_id,
                                                              "grants": None if grants is None else list(grants),
                                                              "ttlSeconds": ttl_seconds}))

    # The registries: kind is entities, worlds or rooms.
    @staticmethod
    def registry_create(kind: str, item: Mapping[str, Any], idempotency_key: str | None) -> _Request:
        return _Request("POST", "/v1/" + kind, body=dict(item), headers=_idem(idempotency_key), write=True)

    @staticmethod
    def registry_get(kind: str, item_id: str, **acting: str | None) -> _Request:
        return _Request("GET", f"/v1/{kind}/" + _seg(item_id), params=_filter_params(acting, _ACTING_PARAMS))

    @staticmethod
    def registry_list(kind: str, limit: int | None, cursor: str | None, **filters: str | None) -> _Request:
        params = _drop_none({"limit": None if limit is None else str(limit), "cursor": cursor or None, **filters})
        return _Request("GET", "/v1/" + kind, params=params)

    @staticmethod
    def registry_update(kind: str, item_id: str, patch: Mapping[str, Any], if_match: int | None) -> _Request:
        headers = {"If-Match": f'"{if_match}"'} if if_match else {}
        return _Request("PATCH", f"/v1/{kind}/" + _seg(item_id), body=dict(patch), headers=headers)

    @staticmethod
    def registry_delete(kind: str, item_id: str, if_match: int | None) -> _Request:
        headers = {"If-Match": f'"{if_match}"'} if if_match else {}
        return _Request("DELETE", f"/v1/{kind}/" + _seg(item_id), headers=headers)

    @staticmethod
    def participants(room_id: str, method: str = "GET", entity_id: str | None = None) -> _Request:
        path = "/v1/rooms/" + _seg(room_id) + "/participants"
        if method == "POST":
            return _Request("POST", path, body={"entityId": entity_id}, write=True)
        if method == "DELETE":
            return _Request("DELETE", path + "/" + _seg(entity_id or ""))
        return _Request("GET", path)

    @staticmethod
    def upload_document(name: str, content: str | bytes, scope: str | None, agent_id: str | None,
                        idempotency_key: str | None) -> _Request:
        body: dict[str, Any] = _drop_none({"name": name, "scope": scope, "agentId": agent_id})
        if isinstance(content, (bytes, bytearray)):
            body["contentBase64"] = base64.b64encode(content).decode("ascii")
        else:
            body["content"] = content
        return _Request("POST", "/v1/documents", body=body, headers=_idem(idempotency_key), write=True)

    @staticmethod
    def get_document(document_id: str) -> _Request:
        return _Request("GET", "/v1/documents/" + _seg(document_id))

    @staticmethod
    def list_documents(limit: int | None, cursor: str | None) -> _Request:
        return _Request("GET", "/v1/documents", params=_drop_none({"limit": None if limit is None else str(limit), "cursor": cursor or None}))

    @staticmethod
    def delete_document(document_id: str) -> _Request:
        return _Request("DELETE", "/v1/documents/" + _seg(document_id))

    @staticmethod
    def healthz() -> _Request:
        return _Request("GET", "/v1/healthz")

    @staticmethod
    def openapi() -> _Request:
        return _Request("GET", "/v1/openapi.json")

    @staticmethod
    def whoami() -> _Request:
        return _Request("GET", "/v1/whoami")

    @staticmethod
    def memory_history(memory_id: str) -> _Request:
        return _Request("GET", "/v1/memories/" + _seg(memory_id) + "/history")

    @staticmethod
    def forget(fields: Mapping[str, Any], idempotency_key: str | None) -> _Request:
        body = _drop_none({"entity": fields["entity"], "sessionId": fields["session_id"], "roomId": fields["room_id"],
                           "start": fields["start"], "end": fields["end"], "agentId": fields["agent_id"]})
        return _Request("POST", "/v1/forget", body=body, headers=_idem(idempotency_key), write=True)

    @staticmethod
    def import_memories(export: bytes | str | Iterable[Mapping[str, Any]], idempotency_key: str | None) -> _Request:
        if isinstance(export, str):
            content = export.encode()
        elif isinstance(export, (bytes, bytearray)):
            content = bytes(export)
        else:
            content = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in export).encode()
        return _Request("POST", "/v1/import", content=content, headers=_idem(idempotency_key), write=True)

    # Administration (/v1/admin): org-level keys with the admin grant.
    @staticmethod
    def audit_log(limit: int | None, cursor: str | None) -> _Request:
        return _Request("GET", "/v1/admin/audit", params=_drop_none({"limit": None if limit is None else str(limit),
                                                                     "cursor": cursor or None}))

    @staticmethod
    def last_consolidation() -> _Request:
        return _Request("GET", "/v1/admin/consolidation")

    @staticmethod
    def consolidate() -> _Request:
        return _Request("POST", "/v1/admin/consolidate")

    @staticmethod
    def get_extraction_settings() -> _Request:
        return _Request("GET", "/v1/admin/settings/extraction")

    @staticmethod
    def put_extraction_settings(settings: ExtractionSettings, if_match: int | None) -> _Request:
        headers = {"If-Match": f'"{if_match}"'} if if_match else {}
        return _Request("PUT", "/v1/admin/settings/extraction", body=dict(settings), headers=headers)

    @staticmethod
    def create_key(grants: Sequence[str], name: str | None, agent_id: str | None) -> _Request:
        return _Request("POST", "/v1/admin/keys", body=_drop_none({"name": name, "agentId": agent_id,
                                                                   "grants": list(grants)}))

    @staticmethod
    def list_keys() -> _Request:
        return _Request("GET", "/v1/admin/keys", parse=lambda r: r.json()["keys"] or [])

    @staticmethod
    def revoke_key(key_id: str) -> _Request:
        return _Request("DELETE", "/v1/admin/keys/" + _seg(key_id), parse=lambda r: r.json()["key"])

    @staticmethod
    def usage() -> _Request:
        return _Request("GET", "/v1/admin/usage")


def _idem(key: str | None) -> dict[str, str]:
    return {"Idempotency-Key": key} if key else {}


class _Base:
    def __init__(self, base_url: str, api_key: str | None, *, token: str | None, max_retries: int, retry_base: float,
                 retry_max: float, max_retry_after: float) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url {base_url!r}: an http or https URL is required")
        if bool(api_key) == bool(token):
            raise ValueError("api_key or token: exactly one is required")
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key or token}", "Accept": "application/json, application/problem+json",
                         "User-Agent": "agentmem-python"}
        self.max_retries = max_retries
        self.retry_base = retry_base
        self.retry_max = retry_max
        self.max_retry_after = max_retry_after

    def _prepare(self, req: _Request) -> dict[str, Any]:
        headers = dict(req.headers)
        if req.write and "Idempotency-Key" not in headers:
            headers["Idempotency-Key"] = uuid.uuid4().hex  # one per call, the same on each retry
        kw: dict[str, Any] = {"headers": headers, "params": req.params}
        if req.body is not None:
            kw["json"] = req.body
        if req.content is not None:
            kw["content"] = req.content
            headers["Content-Type"] = "application/x-ndjson"
        return kw

    def _delay(self, attempt: int, err: APIError) -> float | None:
        """Seconds to wait before retry number attempt, None to give up."""
        if err.status not in (429, 503) or attempt > self.max_retries:
            return None
        if err.retry_after is not None and err.retry_after > 0:
            return err.retry_after if err.retry_after <= self.max_retry_after else None
        return random.uniform(0, min(self.retry_max, self.retry_base * 2 ** (attempt - 1)))


def _check(r: httpx.Response) -> APIError | None:
    if r.status_code >= 400:
        return error_from_response(r.status_code, r.headers, r.content)
    return None


class Client(_Base):
    """A synchronous client of one agentmem server with one API key, or an
    end-user token (token=..., from create_token) instead: every read made
    with a token serves its user, and request fields cannot widen that.

    timeout is in seconds (or an httpx.Timeout) for each request; 429 and
    503 answers are retried up to max_retries times, waiting the server's
    Retry-After (at most max_retry_after seconds) or a jittered backoff.
    """

    def __init__(self, base_url: str, api_key: str | None = None, *, token: str | None = None,
                 timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
                 max_retries: int = DEFAULT_MAX_RETRIES, retry_base: float = DEFAULT_RETRY_BASE,
                 retry_max: float = DEFAULT_RETRY_MAX, max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
                 http_client: httpx.Client | None = None) -> None:
        super().__init__(base_url, api_key, token=token, max_retries=max_retries, retry_base=retry_base,
                         retry_max=retry_max, max_retry_after=max_retry_after)
        self._http = http_client or httpx.Client(timeout=timeout)

    def close(self) -> None:
        """Closes the connection pool."""
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, req: _Request, timeout: float | None = None) -> Any:
        kw = self._prepare(req)
        if timeout is not None:
            kw["timeout"] = timeout
        attempt = 0
        while True:
            attempt += 1
            try:
                r = self._http.request(req.method, self.base_url + req.path, headers={**self._headers, **kw["headers"]},
                                       **{k: v for k, v in kw.items() if k != "headers"})
            except httpx.TimeoutException as e:
                raise APITimeoutError(f"{req.method} {req.path}: timed out") from e
            except httpx.TransportError as e:
                raise APIConnectionError(f"{req.method} {req.path}: {e}") from e
            err = _check(r)
            if err is None:
                return req.parse(r)
            delay = self._delay(attempt, err)
            if delay is None:
                raise err
            time.sleep(delay)

    def healthz(self) -> dict[str, Any]:
        """The server's health report."""
        return self._send(_Requests.healthz())

    def create(self, memory: NewMemory | str, *, idempotency_key: str | None = None, timeout: float | None = None) -> CreateResult:
        """Stores one memory (a str is its text); a duplicate returns the existing id."""
        return self._send(_Requests.create(memory, idempotency_key), timeout)

    def create_batch(self, memories: Sequence[NewMemory], *, idempotency_key: str | None = None,
                     timeout: float | None = None) -> builtins.list[CreateResult]:
        """Stores up to 100 memories, all or nothing, results in order."""
        return self._send(_Requests.create_batch(memories, idempotency_key), timeout)

    def put_by_key(self, key: str, memory: NewMemory | str, *, timeout: float | None = None) -> tuple[Memory, bool]:
        """Creates or replaces the memory keyed key in the caller's scope; returns it and whether it was new."""
        m, created = self._send(_Requests.put_by_key(key, memory), timeout)
        return (m if _shown(m) else self.get(m["id"], timeout=timeout)), created

    def get(self, memory_id: str, *, timeout: float | None = None) -> Memory:
        """Returns a memory; another org's or agent's raises NotFoundError as a missing one."""
        return self._send(_Requests.get(memory_id), timeout)

    def get_by_key(self, key: str, *, timeout: float | None = None) -> Memory:
        """Returns the memory keyed key (its externalId) in the caller's scope; NotFoundError when none is."""
        return self._send(_Requests.get_by_key(key), timeout)

    def delete_by_key(self, key: str, *, timeout: float | None = None) -> None:
        """Deletes the memory keyed key in the caller's scope."""
        self._send(_Requests.delete_by_key(key), timeout)

    def update(self, memory_id: str, patch: Patch, *, if_match: int | None = None, timeout: float | None = None) -> Memory:
        """Applies patch; with if_match (a version) only over that version (else an error whose is_stale is true)."""
        return self._send(_Requests.update(memory_id, patch, if_match), timeout)

    def delete(self, memory_id: str, *, timeout: float | None = None) -> None:
        """Deletes a memory and everything derived from it."""
        self._send(_Requests.delete(memory_id), timeout)

    def delete_where(self, *, timeout: float | None = None, **filters: Any) -> int:
        """Deletes the memories the filters select (at least one); returns how many."""
        return self._send(_Requests.delete_where(filters), timeout)

    def list(self, *, limit: int | None = None, cursor: str | None = None, timeout: float | None = None,
             **filters: Any) -> MemoryPage:
        """One page of memories, newest first (filters: room_id, entity_id, type, start, ...)."""
        return self._send(_Requests.list(limit, cursor, filters), timeout)

    def iter_memories(self, *, limit: int | None = None, timeout: float | None = None, **filters: Any) -> Iterator[Memory]:
        """Every memory the filters select, newest first, page after page (limit per page)."""
        cursor: str | None = None
        while True:
            page = self.list(limit=limit, cursor=cursor, timeout=timeout, **filters)
            yield from page["memories"]
            cursor = page.get("nextCursor")
            if not cursor:
                return

    def count(self, *, timeout: float | None = None, **filters: Any) -> int:
        """Counts the memories the filters select."""
        return self._send(_Requests.count(filters), timeout)

    def search(self, query: str, *, mode: str | None = None, lists: Sequence[str] | None = None, k: int | None = None,
               threshold: float | None = None, filters: Filters | None = None, expand_relations: bool | None = None,
               rerank: bool | None = None, timeout: float | None = None) -> SearchResponse:
        """Ranks the memories the key sees for query; each result carries every list's score and rank."""
        return self._send(_Requests.search(query, mode=mode, lists=lists, k=k, threshold=threshold, filters=filters,
                                           expand_relations=expand_relations, rerank=rerank), timeout)

    def context(self, query: str, *, room_id: str | None = None, user_id: str | None = None,
                world_id: str | None = None, budget_tokens: int | None = None,
                workstream_id: str | None = None, providers: Sequence[str] | None = None,
                reserve_tokens: int | None = None, message_id: str | None = None,
                timeout: float | None = None) -> PromptContext:
        """A prompt context for query within the token budget; room_id, user_id and world_id say whom it
        serves (every section obeys them). providers chooses and orders the sections (core, block, recent,
        knowledge, facts, documents, relations), reserve_tokens leaves part of the budget to your own
        prompt, workstream_id adds a memory block, and message_id lets the server answer the same request
        again from its cache (cached: True) until a write."""
        return self._send(_Requests.context(query, room_id, user_id, world_id, budget_tokens, dict(
            workstream_id=workstream_id, providers=providers, reserve_tokens=reserve_tokens, message_id=message_id)),
            timeout)

    def knowledge_search(self, *, query: KnowledgeQuery | Mapping[str, Any] | None = None, text: str | None = None,
                         limit: int | None = None, filters: Filters | None = None,
                         timeout: float | None = None) -> KnowledgeSearchResponse:
        """A Structured RAG search by expression (query; its scope, a KnowledgeScope, narrows it to a
        document's or a session's range, or to a topic) or question (text)."""
        return self._send(_Requests.knowledge_search(query, text, limit, filters), timeout)

    def knowledge_prefetch(self, text: str, *, limit: int | None = None, term_limit: int | None = None,
                           filters: Filters | None = None, timeout: float | None = None) -> KnowledgePrefetchResponse:
        """Prefetch a request being typed: the completions of its partial last word and the memories of the
        terms it already names."""
        return self._send(_Requests.knowledge_prefetch(text, limit, term_limit, filters), timeout)

    def add_messages(self, messages: Sequence[NewMemory | ChatMessage], *, room_id: str | None = None,
                     user_id: str | None = None, world_id: str | None = None, session_id: str | None = None,
                     agent_id: str | None = None, scope: str | None = None, idempotency_key: str | None = None,
                     timeout: float | None = None) -> MessagesResult:
        """Stores conversation turns, in this API's shape (entityId, the speaker, required) or OpenAI's
        (('role', 'content', 'name')), and queues fact extraction. room_id, user_id... apply to every turn
        that does not set its own; the facts learnt from a conversation with a user_id are that user's."""
        return self._send(_Requests.add_messages(messages, idempotency_key, dict(
            room_id=room_id, world_id=world_id, user_id=user_id, session_id=session_id, agent_id=agent_id,
            scope=scope)), timeout)

    def upload_document(self, name: str, content: str | bytes, *, scope: str | None = None, agent_id: str | None = None,
                        idempotency_key: str | None = None, timeout: float | None = None) -> Document:
        """Ingests a document: text, or bytes (PDF, DOCX) sent as base64; name's extension picks the loader."""
        return self._send(_Requests.upload_document(name, content, scope, agent_id, idempotency_key), timeout)

    def get_document(self, document_id: str, *, timeout: float | None = None) -> Document:
        """A document's ingestion status."""
        return self._send(_Requests.get_document(document_id), timeout)

    def list_documents(self, *, limit: int | None = None, cursor: str | None = None,
                       timeout: float | None = None) -> DocumentPage:
        """One page of the documents the key sees."""
        return self._send(_Requests.list_documents(limit, cursor), timeout)

    def iter_documents(self, *, limit: int | None = None, timeout: float | None = None) -> Iterator[Document]:
        """Every document the key sees, page after page."""
        cursor: str | None = None
        while True:
            page = self.list_documents(limit=limit, cursor=cursor, timeout=timeout)
            yield from page["documents"]
            cursor = page.get("nextCursor")
            if not cursor:
                return

    def delete_document(self, document_id: str, *, timeout: float | None = None) -> None:
        """Deletes a document and its fragments."""
        self._send(_Requests.delete_document(document_id), timeout)

    # Knowledge listings and export: the filters (room_id, user_id, world_id...) as for list.

    def knowledge_entities(self, *, timeout: float | None = None, **filters: Any) -> dict[str, Any]:
        """A page of extracted entities ({"entities", "nextCursor"}); filters as for list, plus entity_type,
        prefix, name, limit and cursor."""
        return self._send(_Requests.knowledge_list("entities", filters), timeout)

    def knowledge_topics(self, *, timeout: float | None = None, **filters: Any) -> dict[str, Any]:
        """A page of extracted topics ({"topics", "nextCursor"}); filters as for knowledge_entities."""
        return self._send(_Requests.knowledge_list("topics", filters), timeout)

    def knowledge_terms(self, *, timeout: float | None = None, **filters: Any) -> builtins.list[TermHint]:
        """Term completions of prefix over the memories the filters select."""
        return (self._send(_Requests.knowledge_list("terms", filters), timeout))["terms"] or []

    def knowledge_status(self, *, timeout: float | None = None) -> dict[str, Any]:
        """How many of the org's memories wait for their knowledge ({"pending": n, "more": bool}); org-level keys only."""
        return self._send(_Requests.knowledge_status(), timeout)

    def export(self, *, timeout: float | None = None, **opts: Any) -> builtins.list[dict[str, Any]]:
        """The export's lines ({"kind": "memory" | "relation" | "document", ...}); opts: agent_id, room_id,
        world_id, user_id (whom it serves), embeddings."""
        return self._send(_Requests.export(opts), timeout)

    # End-user tokens.

    def create_token(self, user_id: str, *, room_id: str | None = None, world_id: str | None = None,
                     grants: Sequence[str] | None = None, ttl_seconds: int | None = None,
                     timeout: float | None = None) -> Token:
        """Mints a short-lived token bound to user_id (and room_id, world_id); pass its "token" as
        token=... to a new client. A client made with a token cannot mint (403)."""
        return self._send(_Requests.create_token(user_id, room_id, world_id, grants, ttl_seconds), timeout)

    # The registries: entities, worlds, rooms and participants. if_match (an item's version) makes an
    # update or delete apply only over that version.

    def create_entity(self, entity: NewEntity, *, idempotency_key: str | None = None,
                      timeout: float | None = None) -> Entity:
        """Registers an entity (names[0] the display name, the others aliases)."""
        return self._send(_Requests.registry_create("entities", entity, idempotency_key), timeout)

    def get_entity(self, entity_id: str, *, timeout: float | None = None) -> Entity:
        return self._send(_Requests.registry_get("entities", entity_id), timeout)

    def list_entities(self, *, limit: int | None = None, cursor: str | None = None,
                      timeout: float | None = None) -> EntityPage:
        return self._send(_Requests.registry_list("entities", limit, cursor), timeout)

    def update_entity(self, entity_id: str, patch: Mapping[str, Any], *, if_match: int | None = None,
                      timeout: float | None = None) -> Entity:
        return self._send(_Requests.registry_update("entities", entity_id, patch, if_match), timeout)

    def delete_entity(self, entity_id: str, *, if_match: int | None = None, timeout: float | None = None) -> None:
        self._send(_Requests.registry_delete("entities", entity_id, if_match), timeout)

    def create_world(self, world: NewWorld, *, idempotency_key: str | None = None,
                     timeout: float | None = None) -> World:
        """Registers a world (a group of rooms)."""
        return self._send(_Requests.registry_create("worlds", world, idempotency_key), timeout)

    def get_world(self, world_id: str, *, timeout: float | None = None) -> World:
        return self._send(_Requests.registry_get("worlds", world_id), timeout)

    def list_worlds(self, *, limit: int | None = None, cursor: str | None = None,
                    timeout: float | None = None) -> WorldPage:
        return self._send(_Requests.registry_list("worlds", limit, cursor), timeout)

    def update_world(self, world_id: str, patch: Mapping[str, Any], *, if_match: int | None = None,
                     timeout: float | None = None) -> World:
        return self._send(_Requests.registry_update("worlds", world_id, patch, if_match), timeout)

    def delete_world(self, world_id: str, *, if_match: int | None = None, timeout: float | None = None) -> None:
        self._send(_Requests.registry_delete("worlds", world_id, if_match), timeout)

    def create_room(self, room: NewRoom, *, idempotency_key: str | None = None, timeout: float | None = None) -> Room:
        """Registers a room (in a world the caller has, with its participants)."""
        return self._send(_Requests.registry_create("rooms", room, idempotency_key), timeout)

    def get_room(self, room_id: str, *, timeout: float | None = None) -> Room:
        return self._send(_Requests.registry_get("rooms", room_id), timeout)

    def list_rooms(self, *, world_id: str | None = None, limit: int | None = None, cursor: str | None = None,
                   timeout: float | None = None) -> RoomPage:
        """A page of rooms, of world_id only when given."""
        return self._send(_Requests.registry_list("rooms", limit, cursor, worldId=world_id), timeout)

    def update_room(self, room_id: str, patch: Mapping[str, Any], *, if_match: int | None = None,
                    timeout: float | None = None) -> Room:
        return self._send(_Requests.registry_update("rooms", room_id, patch, if_match), timeout)

    def delete_room(self, room_id: str, *, if_match: int | None = None, timeout: float | None = None) -> None:
        self._send(_Requests.registry_delete("rooms", room_id, if_match), timeout)

    def list_participants(self, room_id: str, *, timeout: float | None = None) -> Participants:
        return self._send(_Requests.participants(room_id), timeout)

    def add_participant(self, room_id: str, entity_id: str, *, timeout: float | None = None) -> Participants:
        return self._send(_Requests.participants(room_id, "POST", entity_id), timeout)

    def remove_participant(self, room_id: str, entity_id: str, *, timeout: float | None = None) -> Participants:
        return self._send(_Requests.participants(room_id, "DELETE", entity_id), timeout)

    # Agent state (docs/agent-state.md): memory blocks, relations, restore.
    def create_workstream(self, workstream: NewWorkstream, *, idempotency_key: str | None = None,
                          timeout: float | None = None) -> WorkstreamBlock:
        """Creates a workstream (a memory block), placed as a memory would be."""
        return self._send(_Requests.create_workstream(workstream, idempotency_key), timeout)

    def get_workstream(self, workstream_id: str, *, user_id: str | None = None, room_id: str | None = None,
                         world_id: str | None = None, timeout: float | None = None) -> WorkstreamBlock:
        """A workstream's block, its entries oldest first, and its compaction history; user_id, room_id and
        world_id say whom the read serves (a block of another audience is NotFoundError)."""
        return self._send(_Requests.registry_get("workstreams", workstream_id, user_id=user_id, room_id=room_id,
                                                   world_id=world_id), timeout)

    def list_workstreams(self, *, limit: int | None = None, cursor: str | None = None,
                         user_id: str | None = None, room_id: str | None = None, world_id: str | None = None,
                         timeout: float | None = None) -> WorkstreamList:
        """A page of the workstreams the key sees, without their history; user_id, room_id and world_id say
        whom the read serves (it lists no block of another user, room or world)."""
        return self._send(_Requests.registry_list("workstreams", limit, cursor, userId=user_id, roomId=room_id,
                                                    worldId=world_id), timeout)

    def delete_workstream(self, workstream_id: str, *, timeout: float | None = None) -> None:
        self._send(_Requests.registry_delete("workstreams", workstream_id, None), timeout)

    def append_workstream_entry(self, workstream_id: str, role: str, text: str, *, importance: float | None = None,
                                idempotency_key: str | None = None, timeout: float | None = None) -> WorkstreamBlock:
        """Appends a note to a block and returns the block as written (compacted past its limit)."""
        return self._send(_Requests.append_entry(workstream_id, role, text, importance, idempotency_key), timeout)

    def create_relation(self, from_id: str, to_id: str, type: str, *, confidence: float | None = None,
                        idempotency_key: str | None = None, timeout: float | None = None) -> Relation:
        """Stores an edge between two memories the key sees; the answer carries its id."""
        return self._send(_Requests.create_relation(from_id, to_id, type, confidence, idempotency_key), timeout)

    def list_relations(self, memory_id: str, *, timeout: float | None = None) -> list[Relation]:
        """The edges of a memory, both directions, whose other end the key sees."""
        return self._send(_Requests.relations(memory_id), timeout)

    def delete_relation(self, relation_id: str, *, timeout: float | None = None) -> None:
        self._send(_Requests.registry_delete("relations", relation_id, None), timeout)

    def archive_memory(self, memory_id: str, *, reason: str | None = None, timeout: float | None = None) -> Memory:
        """Archives a memory: out of search and lists until restored."""
        return self._send(_Requests.archive(memory_id, reason), timeout)

    def restore_memory(self, memory_id: str, *, timeout: float | None = None) -> Memory:
        """Un-archives a memory (recorded in its history)."""
        return self._send(_Requests.restore(memory_id), timeout)

    # The key, the document, history, erasure, import and administration (org-level keys with admin).

    def openapi(self, *, timeout: float | None = None) -> dict[str, Any]:
        """The server's OpenAPI document."""
        return self._send(_Requests.openapi(), timeout)

    def whoami(self, *, timeout: float | None = None) -> Whoami:
        """What the client's key (or token) is bound to and may do; any valid key may ask."""
        return self._send(_Requests.whoami(), timeout)

    def memory_history(self, memory_id: str, *, timeout: float | None = None) -> MemoryHistory:
        """Each version of a memory, oldest first: the operation, when, by whom, and the memory as it left it."""
        return self._send(_Requests.memory_history(memory_id), timeout)

    def forget(self, *, entity: str | None = None, session_id: str | None = None,
               room_id: str | None = None, start: int | None = None, end: int | None = None,
               agent_id: str | None = None, idempotency_key: str | None = None,
               timeout: float | None = None) -> ForgetReport:
        """Erases the memories matching every field given (at least one; start and end in ms since the epoch), with
        what was drawn from them; agent_id narrows an org-level key's erasure to one agent (_org: the org
        scope). The report carries the audit entry's id (auditId)."""
        return self._send(_Requests.forget(dict(entity=entity, session_id=session_id, room_id=room_id,
            start=start, end=end, agent_id=agent_id), idempotency_key), timeout)

    def import_memories(self, export: bytes | str | Iterable[Mapping[str, Any]], *,
                        idempotency_key: str | None = None, timeout: float | None = None) -> ImportReport:
        """Reads an export back into the key's org, idempotently: NDJSON (bytes or str), or the lines export
        returns. Lines it cannot take are listed in the report's errors."""
        return self._send(_Requests.import_memories(export, idempotency_key), timeout)

    def audit_log(self, *, limit: int | None = None, cursor: str | None = None,
                  timeout: float | None = None) -> AuditPage:
        """A page of the org's audit log (the erasures), newest first."""
        return self._send(_Requests.audit_log(limit, cursor), timeout)

    def last_consolidation(self, *, timeout: float | None = None) -> ConsolidationReport:
        """The report of the org's last consolidation (NotFoundError before the first)."""
        return self._send(_Requests.last_consolidation(), timeout)

    def consolidate(self, *, timeout: float | None = None) -> ConsolidationReport:
        """Runs a consolidation of the org now and returns its report."""
        return self._send(_Requests.consolidate(), timeout)

    def get_extraction_settings(self, *, timeout: float | None = None) -> StoredSettings:
        """The org's extraction settings and their version."""
        return self._send(_Requests.get_extraction_settings(), timeout)

    def put_extraction_settings(self, settings: ExtractionSettings, *, if_match: int | None = None,
                                timeout: float | None = None) -> StoredSettings:
        """Replaces the org's extraction settings; with if_match (a version) only over that version."""
        return self._send(_Requests.put_extraction_settings(settings, if_match), timeout)

    def create_key(self, grants: Sequence[str], *, name: str | None = None,
                   agent_id: str | None = None, timeout: float | None = None) -> CreatedKey:
        """Creates an API key of the org (bound to agent_id when given); its secret is shown once."""
        return self._send(_Requests.create_key(grants, name, agent_id), timeout)

    def list_keys(self, *, timeout: float | None = None) -> builtins.list[APIKey]:
        """The org's stored keys, without their secrets."""
        return self._send(_Requests.list_keys(), timeout)

    def revoke_key(self, key_id: str, *, timeout: float | None = None) -> APIKey:
        """Revokes a key (by its id, not its secret) and returns it."""
        return self._send(_Requests.revoke_key(key_id), timeout)

    def usage(self, *, timeout: float | None = None) -> Usage:
        """The org's usage and quotas (0 is unlimited)."""
        return self._send(_Requests.usage(), timeout)


class AsyncClient(_Base):
    """The asynchronous client: Client's methods, awaited. Cancelling the
    awaiting task cancels the request (and any wait before a retry)."""

    def __init__(self, base_url: str, api_key: str | None = None, *, token: str | None = None,
                 timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
                 max_retries: int = DEFAULT_MAX_RETRIES, retry_base: float = DEFAULT_RETRY_BASE,
                 retry_max: float = DEFAULT_RETRY_MAX, max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
                 http_client: httpx.AsyncClient | None = None) -> None:
        super().__init__(base_url, api_key, token=token, max_retries=max_retries, retry_base=retry_base,
                         retry_max=retry_max, max_retry_after=max_retry_after)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def aclose(self) -> None:
        """Closes the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _send(self, req: _Request, timeout: float | None = None) -> Any:
        kw = self._prepare(req)
        if timeout is not None:
            kw["timeout"] = timeout
        attempt = 0
        while True:
            attempt += 1
            try:
                r = await self._http.request(req.method, self.base_url + req.path, headers={**self._headers, **kw["headers"]},
                                             **{k: v for k, v in kw.items() if k != "headers"})
            except httpx.TimeoutException as e:
                raise APITimeoutError(f"{req.method} {req.path}: timed out") from e
            except httpx.TransportError as e:
                raise APIConnectionError(f"{req.method} {req.path}: {e}") from e
            err = _check(r)
            if err is None:
                return req.parse(r)
            delay = self._delay(attempt, err)
            if delay is None:
                raise err
            await asyncio.sleep(delay)

    async def healthz(self) -> dict[str, Any]:
        """The server's health report."""
        return await self._send(_Requests.healthz())

    async def create(self, memory: NewMemory | str, *, idempotency_key: str | None = None,
                     timeout: float | None = None) -> CreateResult:
        """Stores one memory (a str is its text); a duplicate returns the existing id."""
        return await self._send(_Requests.create(memory, idempotency_key), timeout)

    async def create_batch(self, memories: Sequence[NewMemory], *, idempotency_key: str | None = None,
                           timeout: float | None = None) -> builtins.list[CreateResult]:
        """Stores up to 100 memories, all or nothing, results in order."""
        return await self._send(_Requests.create_batch(memories, idempotency_key), timeout)

    async def put_by_key(self, key: str, memory: NewMemory | str, *, timeout: float | None = None) -> tuple[Memory, bool]:
        """Creates or replaces the memory keyed key in the caller's scope; returns it and whether it was new."""
        m, created = await self._send(_Requests.put_by_key(key, memory), timeout)
        return (m if _shown(m) else await self.get(m["id"], timeout=timeout)), created

    async def get(self, memory_id: str, *, timeout: float | None = None) -> Memory:
        """Returns a memory; another org's or agent's raises NotFoundError as a missing one."""
        return await self._send(_Requests.get(memory_id), timeout)

    async def get_by_key(self, key: str, *, timeout: float | None = None) -> Memory:
        """Returns the memory keyed key (its externalId) in the caller's scope; NotFoundError when none is."""
        return await self._send(_Requests.get_by_key(key), timeout)

    async def delete_by_key(self, key: str, *, timeout: float | None = None) -> None:
        """Deletes the memory keyed key in the caller's scope."""
        await self._send(_Requests.delete_by_key(key), timeout)

    async def update(self, memory_id: str, patch: Patch, *, if_match: int | None = None,
                     timeout: float | None = None) -> Memory:
        """Applies patch; with if_match (a version) only over that version."""
        return await self._send(_Requests.update(memory_id, patch, if_match), timeout)

    async def delete(self, memory_id: str, *, timeout: float | None = None) -> None:
        """Deletes a memory and everything derived from it."""
        await self._send(_Requests.delete(memory_id), timeout)

    async def delete_where(self, *, timeout: float | None = None, **filters: Any) -> int:
        """Deletes the memories the filters select (at least one); returns how many."""
        return await self._send(_Requests.delete_where(filters), timeout)

    async def list(self, *, limit: int | None = None, cursor: str | None = None, timeout: float | None = None,
                   **filters: Any) -> MemoryPage:
        """One page of memories, newest first."""
        return await self._send(_Requests.list(limit, cursor, filters), timeout)

    async def iter_memories(self, *, limit: int | None = None, timeout: float | None = None,
                            **filters: Any) -> AsyncIterator[Memory]:
        """Every memory the filters select, newest first, page after page."""
        cursor: str | None = None
        while True:
            page = await self.list(limit=limit, cursor=cursor, timeout=timeout, **filters)
            for m in page["memories"]:
                yield m
            cursor = page.get("nextCursor")
            if not cursor:
                return

    async def count(self, *, timeout: float | None = None, **filters: Any) -> int:
        """Counts the memories the filters select."""
        return await self._send(_Requests.count(filters), timeout)

    async def search(self, query: str, *, mode: str | None = None, lists: Sequence[str] | None = None,
                     k: int | None = None, threshold: float | None = None, filters: Filters | None = None,
                     expand_relations: bool | None = None, rerank: bool | None = None,
                     timeout: float | None = None) -> SearchResponse:
        """Ranks the memories the key sees for query."""
        return await self._send(_Requests.search(query, mode=mode, lists=lists, k=k, threshold=threshold, filters=filters,
                                                 expand_relations=expand_relations, rerank=rerank), timeout)

    async def context(self, query: str, *, room_id: str | None = None, user_id: str | None = None,
                      world_id: str | None = None, budget_tokens: int | None = None,
                      workstream_id: str | None = None, providers: Sequence[str] | None = None,
                      reserve_tokens: int | None = None, message_id: str | None = None,
                      timeout: float | None = None) -> PromptContext:
        """A prompt context for query within the token budget; room_id, user_id and world_id say whom it
        serves (every section obeys them). providers chooses and orders the sections (core, block, recent,
        knowledge, facts, documents, relations), reserve_tokens leaves part of the budget to your own
        prompt, workstream_id adds a memory block, and message_id lets the server answer the same request
        again from its cache (cached: True) until a write."""
        return await self._send(_Requests.context(query, room_id, user_id, world_id, budget_tokens, dict(
            workstream_id=workstream_id, providers=providers, reserve_tokens=reserve_tokens, message_id=message_id)),
            timeout)

    async def knowledge_search(self, *, query: KnowledgeQuery | Mapping[str, Any] | None = None,
                               text: str | None = None, limit: int | None = None, filters: Filters | None = None,
                               timeout: float | None = None) -> KnowledgeSearchResponse:
        """A Structured RAG search by expression (query; its scope, a KnowledgeScope, narrows it to a
        document's or a session's range, or to a topic) or question (text)."""
        return await self._send(_Requests.knowledge_search(query, text, limit, filters), timeout)

    async def knowledge_prefetch(self, text: str, *, limit: int | None = None, term_limit: int | None = None,
                                 filters: Filters | None = None,
                                 timeout: float | None = None) -> KnowledgePrefetchResponse:
        """Prefetch a request being typed: the completions of its partial last word and the memories of the
        terms it already names."""
        return await self._send(_Requests.knowledge_prefetch(text, limit, term_limit, filters), timeout)

    async def add_messages(self, messages: Sequence[NewMemory | ChatMessage], *, room_id: str | None = None,
                     user_id: str | None = None, world_id: str | None = None, session_id: str | None = None,
                     agent_id: str | None = None, scope: str | None = None, idempotency_key: str | None = None,
                     timeout: float | None = None) -> MessagesResult:
        """Stores conversation turns, in this API's shape (entityId, the speaker, required) or OpenAI's
        (('role', 'content', 'name')), and queues fact extraction. room_id, user_id... apply to every turn
        that does not set its own; the facts learnt from a conversation with a user_id are that user's."""
        return await self._send(_Requests.add_messages(messages, idempotency_key, dict(
            room_id=room_id, world_id=world_id, user_id=user_id, session_id=session_id, agent_id=agent_id,
            scope=scope)), timeout)

    async def upload_document(self, name: str, content: str | bytes, *, scope: str | None = None,
                              agent_id: str | None = None, idempotency_key: str | None = None,
                              timeout: float | None = None) -> Document:
        """Ingests a document: text, or bytes sent as base64."""
        return await self._send(_Requests.upload_document(name, content, scope, agent_id, idempotency_key), timeout)

    async def get_document(self, document_id: str, *, timeout: float | None = None) -> Document:
        """A document's ingestion status."""
        return await self._send(_Requests.get_document(document_id), timeout)

    async def list_documents(self, *, limit: int | None = None, cursor: str | None = None,
                             timeout: float | None = None) -> DocumentPage:
        """One page of the documents the key sees."""
        return await self._send(_Requests.list_documents(limit, cursor), timeout)

    async def iter_documents(self, *, limit: int | None = None, timeout: float | None = None) -> AsyncIterator[Document]:
        """Every document the key sees, page after page."""
        cursor: str | None = None
        while True:
            page = await self.list_documents(limit=limit, cursor=cursor, timeout=timeout)
            for d in page["documents"]:
                yield d
            cursor = page.get("nextCursor")
            if not cursor:
                return

    async def delete_document(self, document_id: str, *, timeout: float | None = None) -> None:
        """Deletes a document and its fragments."""
        await self._send(_Requests.delete_document(document_id), timeout)

    # Knowledge listings and export: the filters (room_id, user_id, world_id...) as for list.

    async def knowledge_entities(self, *, timeout: float | None = None, **filters: Any) -> dict[str, Any]:
        """A page of extracted entities ({"entities", "nextCursor"}); filters as for list, plus entity_type,
        prefix, name, limit and cursor."""
        return await self._send(_Requests.knowledge_list("entities", filters), timeout)

    async def knowledge_topics(self, *, timeout: float | None = None, **filters: Any) -> dict[str, Any]:
        """A page of extracted topics ({"topics", "nextCursor"}); filters as for knowledge_entities."""
        return await self._send(_Requests.knowledge_list("topics", filters), timeout)

    async def knowledge_terms(self, *, timeout: float | None = None, **filters: Any) -> builtins.list[TermHint]:
        """Term completions of prefix over the memories the filters select."""
        return (await self._send(_Requests.knowledge_list("terms", filters), timeout))["terms"] or []

    async def knowledge_status(self, *, timeout: float | None = None) -> dict[str, Any]:
        """How many of the org's memories wait for their knowledge ({"pending": n, "more": bool}); org-level keys only."""
        return await self._send(_Requests.knowledge_status(), timeout)

    async def export(self, *, timeout: float | None = None, **opts: Any) -> builtins.list[dict[str, Any]]:
        """The export's lines ({"kind": "memory" | "relation" | "document", ...}); opts: agent_id, room_id,
        world_id, user_id (whom it serves), embeddings."""
        return await self._send(_Requests.export(opts), timeout)

    # End-user tokens.

    async def create_token(self, user_id: str, *, room_id: str | None = None, world_id: str | None = None,
                     grants: Sequence[str] | None = None, ttl_seconds: int | None = None,
                     timeout: float | None = None) -> Token:
        """Mints a short-lived token bound to user_id (and room_id, world_id); pass its "token" as
        token=... to a new client. A client made with a token cannot mint (403)."""
        return await self._send(_Requests.create_token(user_id, room_id, world_id, grants, ttl_seconds), timeout)

    # The registries: entities, worlds, rooms and participants. if_match (an item's version) makes an
    # update or delete apply only over that version.

    async def create_entity(self, entity: NewEntity, *, idempotency_key: str | None = None,
                      timeout: float | None = None) -> Entity:
        """Registers an entity (names[0] the display name, the others aliases)."""
        return await self._send(_Requests.registry_create("entities", entity, idempotency_key), timeout)

    async def get_entity(self, entity_id: str, *, timeout: float | None = None) -> Entity:
        return await self._send(_Requests.registry_get("entities", entity_id), timeout)

    async def list_entities(self, *, limit: int | None = None, cursor: str | None = None,
                      timeout: float | None = None) -> EntityPage:
        return await self._send(_Requests.registry_list("entities", limit, cursor), timeout)

    async def update_entity(self, entity_id: str, patch: Mapping[str, Any], *, if_match: int | None = None,
                      timeout: float | None = None) -> Entity:
        return await self._send(_Requests.registry_update("entities", entity_id, patch, if_match), timeout)

    async def delete_entity(self, entity_id: str, *, if_match: int | None = None, timeout: float | None = None) -> None:
        await self._send(_Requests.registry_delete("entities", entity_id, if_match), timeout)

    async def create_world(self, world: NewWorld, *, idempotency_key: str | None = None,
                     timeout: float | None = None) -> World:
        """Registers a world (a group of rooms)."""
        return await self._send(_Requests.registry_create("worlds", world, idempotency_key), timeout)

    async def get_world(self, world_id: str, *, timeout: float | None = None) -> World:
        return await self._send(_Requests.registry_get("worlds", world_id), timeout)

    async def list_worlds(self, *, limit: int | None = None, cursor: str | None = None,
                    timeout: float | None = None) -> WorldPage:
        return await self._send(_Requests.registry_list("worlds", limit, cursor), timeout)

    async def update_world(self, world_id: str, patch: Mapping[str, Any], *, if_match: int | None = None,
                     timeout: float | None = None) -> World:
        return await self._send(_Requests.registry_update("worlds", world_id, patch, if_match), timeout)

    async def delete_world(self, world_id: str, *, if_match: int | None = None, timeout: float | None = None) -> None:
        await self._send(_Requests.registry_delete("worlds", world_id, if_match), timeout)

    async def create_room(self, room: NewRoom, *, idempotency_key: str | None = None, timeout: float | None = None) -> Room:
        """Registers a room (in a world the caller has, with its participants)."""
        return await self._send(_Requests.registry_create("rooms", room, idempotency_key), timeout)

    async def get_room(self, room_id: str, *, timeout: float | None = None) -> Room:
        return await self._send(_Requests.registry_get("rooms", room_id), timeout)

    async def list_rooms(self, *, world_id: str | None = None, limit: int | None = None, cursor: str | None = None,
                   timeout: float | None = None) -> RoomPage:
        """A page of rooms, of world_id only when given."""
        return await self._send(_Requests.registry_list("rooms", limit, cursor, worldId=world_id), timeout)

    async def update_room(self, room_id: str, patch: Mapping[str, Any], *, if_match: int | None = None,
                    timeout: float | None = None) -> Room:
        return await self._send(_Requests.registry_update("rooms", room_id, patch, if_match), timeout)

    async def delete_room(self, room_id: str, *, if_match: int | None = None, timeout: float | None = None) -> None:
        await self._send(_Requests.registry_delete("rooms", room_id, if_match), timeout)

    async def list_participants(self, room_id: str, *, timeout: float | None = None) -> Participants:
        return await self._send(_Requests.participants(room_id), timeout)

    async def add_participant(self, room_id: str, entity_id: str, *, timeout: float | None = None) -> Participants:
        return await self._send(_Requests.participants(room_id, "POST", entity_id), timeout)

    async def remove_participant(self, room_id: str, entity_id: str, *, timeout: float | None = None) -> Participants:
        return await self._send(_Requests.participants(room_id, "DELETE", entity_id), timeout)

    # Agent state (docs/agent-state.md): memory blocks, relations, restore.
    async def create_workstream(self, workstream: NewWorkstream, *, idempotency_key: str | None = None,
                          timeout: float | None = None) -> WorkstreamBlock:
        """Creates a workstream (a memory block), placed as a memory would be."""
        return await self._send(_Requests.create_workstream(workstream, idempotency_key), timeout)

    async def get_workstream(self, workstream_id: str, *, user_id: str | None = None,
                             room_id: str | None = None, world_id: str | None = None,
                             timeout: float | None = None) -> WorkstreamBlock:
        """A workstream's block, its entries oldest first, and its compaction history; user_id, room_id and
        world_id say whom the read serves (a block of another audience is NotFoundError)."""
        return await self._send(_Requests.registry_get("workstreams", workstream_id, user_id=user_id,
                                                         room_id=room_id, world_id=world_id), timeout)

    async def list_workstreams(self, *, limit: int | None = None, cursor: str | None = None,
                               user_id: str | None = None, room_id: str | None = None, world_id: str | None = None,
                               timeout: float | None = None) -> WorkstreamList:
        """A page of the workstreams the key sees, without their history; user_id, room_id and world_id say
        whom the read serves (it lists no block of another user, room or world)."""
        return await self._send(_Requests.registry_list("workstreams", limit, cursor, userId=user_id,
                                                          roomId=room_id, worldId=world_id), timeout)

    async def delete_workstream(self, workstream_id: str, *, timeout: float | None = None) -> None:
        await self._send(_Requests.registry_delete("workstreams", workstream_id, None), timeout)

    async def append_workstream_entry(self, workstream_id: str, role: str, text: str, *, importance: float | None = None,
                                idempotency_key: str | None = None, timeout: float | None = None) -> WorkstreamBlock:
        """Appends a note to a block and returns the block as written (compacted past its limit)."""
        return await self._send(_Requests.append_entry(workstream_id, role, text, importance, idempotency_key), timeout)

    async def create_relation(self, from_id: str, to_id: str, type: str, *, confidence: float | None = None,
                        idempotency_key: str | None = None, timeout: float | None = None) -> Relation:
        """Stores an edge between two memories the key sees; the answer carries its id."""
        return await self._send(_Requests.create_relation(from_id, to_id, type, confidence, idempotency_key), timeout)

    async def list_relations(self, memory_id: str, *, timeout: float | None = None) -> list[Relation]:
        """The edges of a memory, both directions, whose other end the key sees."""
        return await self._send(_Requests.relations(memory_id), timeout)

    async def delete_relation(self, relation_id: str, *, timeout: float | None = None) -> None:
        await self._send(_Requests.registry_delete("relations", relation_id, None), timeout)

    async def archive_memory(self, memory_id: str, *, reason: str | None = None, timeout: float | None = None) -> Memory:
        """Archives a memory: out of search and lists until restored."""
        return await self._send(_Requests.archive(memory_id, reason), timeout)

    async def restore_memory(self, memory_id: str, *, timeout: float | None = None) -> Memory:
        """Un-archives a memory (recorded in its history)."""
        return await self._send(_Requests.restore(memory_id), timeout)

    # The key, the document, history, erasure, import and administration (org-level keys with admin).

    async def openapi(self, *, timeout: float | None = None) -> dict[str, Any]:
        """The server's OpenAPI document."""
        return await self._send(_Requests.openapi(), timeout)

    async def whoami(self, *, timeout: float | None = None) -> Whoami:
        """What the client's key (or token) is bound to and may do; any valid key may ask."""
        return await self._send(_Requests.whoami(), timeout)

    async def memory_history(self, memory_id: str, *, timeout: float | None = None) -> MemoryHistory:
        """Each version of a memory, oldest first: the operation, when, by whom, and the memory as it left it."""
        return await self._send(_Requests.memory_history(memory_id), timeout)

    async def forget(self, *, entity: str | None = None, session_id: str | None = None,
                     room_id: str | None = None, start: int | None = None, end: int | None = None,
                     agent_id: str | None = None, idempotency_key: str | None = None,
                     timeout: float | None = None) -> ForgetReport:
        """Erases the memories matching every field given (at least one; start and end in ms since the epoch), with
        what was drawn from them; agent_id narrows an org-level key's erasure to one agent (_org: the org
        scope). The report carries the audit entry's id (auditId)."""
        return await self._send(_Requests.forget(dict(entity=entity, session_id=session_id, room_id=room_id,
            start=start, end=end, agent_id=agent_id), idempotency_key), timeout)

    async def import_memories(self, export: bytes | str | Iterable[Mapping[str, Any]], *,
                              idempotency_key: str | None = None, timeout: float | None = None) -> ImportReport:
        """Reads an export back into the key's org, idempotently: NDJSON (bytes or str), or the lines export
        returns. Lines it cannot take are listed in the report's errors."""
        return await self._send(_Requests.import_memories(export, idempotency_key), timeout)

    async def audit_log(self, *, limit: int | None = None, cursor: str | None = None,
                        timeout: float | None = None) -> AuditPage:
        """A page of the org's audit log (the erasures), newest first."""
        return await self._send(_Requests.audit_log(limit, cursor), timeout)

    async def last_consolidation(self, *, timeout: float | None = None) -> ConsolidationReport:
        """The report of the org's last consolidation (NotFoundError before the first)."""
        return await self._send(_Requests.last_consolidation(), timeout)

    async def consolidate(self, *, timeout: float | None = None) -> ConsolidationReport:
        """Runs a consolidation of the org now and returns its report."""
        return await self._send(_Requests.consolidate(), timeout)

    async def get_extraction_settings(self, *, timeout: float | None = None) -> StoredSettings:
        """The org's extraction settings and their version."""
        return await self._send(_Requests.get_extraction_settings(), timeout)

    async def put_extraction_settings(self, settings: ExtractionSettings, *,
                                      if_match: int | None = None, timeout: float | None = None) -> StoredSettings:
        """Replaces the org's extraction settings; with if_match (a version) only over that version."""
        return await self._send(_Requests.put_extraction_settings(settings, if_match), timeout)

    async def create_key(self, grants: Sequence[str], *, name: str | None = None,
                         agent_id: str | None = None, timeout: float | None = None) -> CreatedKey:
        """Creates an API key of the org (bound to agent_id when given); its secret is shown once."""
        return await self._send(_Requests.create_key(grants, name, agent_id), timeout)

    async def list_keys(self, *, timeout: float | None = None) -> builtins.list[APIKey]:
        """The org's stored keys, without their secrets."""
        return await self._send(_Requests.list_keys(), timeout)

    async def revoke_key(self, key_id: str, *, timeout: float | None = None) -> APIKey:
        """Revokes a key (by its id, not its secret) and returns it."""
        return await self._send(_Requests.revoke_key(key_id), timeout)

    async def usage(self, *, timeout: float | None = None) -> Usage:
        """The org's usage and quotas (0 is unlimited)."""
        return await self._send(_Requests.usage(), timeout)
