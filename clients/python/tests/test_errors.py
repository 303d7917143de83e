"""Error parsing and the retry policy, on canned responses (no server)."""

from __future__ import annotations

import email.utils
import socket

import httpx
import pytest

import agentmem
from agentmem import error_from_response
from agentmem._errors import parse_retry_after


@pytest.mark.parametrize(
    "status,headers,body,cls,code,message,request_id",
    [
        (404, {"x-request-id": "r1"}, b'{"error":{"code":"not_found","message":"memory \\"x\\" not found"}}',
         agentmem.NotFoundError, "not_found", 'memory "x" not found', "r1"),
        (412, {"x-request-id": "hdr"},
         b'{"type":"urn:agentmem:problem:precondition_failed","title":"Precondition failed","status":412,'
         b'"detail":"If-Match: stale","instance":"/v1/memories/m1","code":"precondition_failed","requestId":"r2"}',
         agentmem.PreconditionFailedError, "precondition_failed", "If-Match: stale", "r2"),
        (400, {}, b'{"type":"urn:agentmem:problem:invalid","title":"Invalid request","status":400,"detail":"k: at most 100"}',
         agentmem.BadRequestError, "invalid", "k: at most 100", None),
        (403, {}, b'{"type":"about:blank","title":"Quota exceeded","status":403,"code":"quota_exceeded"}',
         agentmem.PermissionDeniedError, "quota_exceeded", "Quota exceeded", None),
        (502, {}, b"Bad Gateway", agentmem.InternalServerError, "internal", "Bad Gateway", None),
        (503, {}, b"", agentmem.ServiceUnavailableError, "unavailable", "", None),
    ],
)
def test_error_shapes(status, headers, body, cls, code, message, request_id):
    err = error_from_response(status, httpx.Headers(headers), body)
    assert type(err) is cls
    assert (err.status, err.code, err.message, err.request_id) == (status, code, message, request_id)


def test_problem_members_kept():
    err = error_from_response(412, httpx.Headers({}), b'{"type":"urn:agentmem:problem:precondition_failed","title":"T",'
                              b'"status":412,"instance":"/i","code":"precondition_failed"}')
    assert (err.type, err.title, err.instance, err.is_stale) == ("urn:agentmem:problem:precondition_failed", "T", "/i", True)


@pytest.mark.parametrize("value,want", [(None, None), ("", None), ("2", 2.0), ("0.5", 0.5), ("-1", None), ("soon", None),
                                        (email.utils.formatdate(1_000_010, usegmt=True), 10.0)])
def test_retry_after(value, want):
    assert parse_retry_after(value, now=1_000_000) == want


class Replies:
    """A transport answering the given (status, headers) in turn, then 200."""

    def __init__(self, *replies: tuple[int, dict[str, str]]) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.replies:
            status, headers = self.replies.pop(0)
            return httpx.Response(status, headers=headers, json={"type": "about:blank", "title": "x", "status": status})
        return httpx.Response(201, json={"id": "m1", "duplicate": False})


@pytest.mark.parametrize(
    "replies,max_retries,want_error,want_sent",
    [
        ([(503, {}), (503, {})], 3, None, 3),
        ([(429, {"Retry-After": "0.01"})], 3, None, 2),
        ([(503, {}), (503, {}), (503, {})], 2, agentmem.ServiceUnavailableError, 3),
        ([(400, {})], 3, agentmem.BadRequestError, 1),
        ([(429, {"Retry-After": "3600"})], 3, agentmem.RateLimitError, 1),
        ([(429, {"Retry-After": "0.01"})], 0, agentmem.RateLimitError, 1),
    ],
)
def test_retries_keep_the_idempotency_key(replies, max_retries, want_error, want_sent):
    t = Replies(*replies)
    c = agentmem.Client("http://test", "key", max_retries=max_retries, retry_base=0.001, retry_max=0.005,
                        http_client=httpx.Client(transport=httpx.MockTransport(t)))
    if want_error:
        with pytest.raises(want_error):
            c.create("hello")
    else:
        assert c.create("hello") == {"id": "m1", "duplicate": False}
    assert len(t.requests) == want_sent
    keys = {r.headers.get("idempotency-key") for r in t.requests}
    assert len(keys) == 1 and None not in keys
    assert all(r.content == b'{"content":{"text":"hello"}}' or r.content == b'{"content": {"text": "hello"}}' for r in t.requests)


def test_idempotency_key_per_call_and_if_match():
    t = Replies()
    c = agentmem.Client("http://test", "key", http_client=httpx.Client(transport=httpx.MockTransport(t)))
    c.create("a")
    c.create("a")
    c.create("a", idempotency_key="mine")
    c.update("m1", {"importance": 0.9}, if_match=7)
    c.search("q")
    c.add_messages([{"entityId": "a", "content": {"text": "a"}}])
    c.upload_document("a.md", "a")
    keys = [r.headers.get("idempotency-key") for r in t.requests]
    assert keys[0] and keys[1] and keys[0] != keys[1] and keys[2] == "mine" and keys[3] is None
    assert keys[4] is None, "a search stores nothing: no key"
    assert keys[5] and keys[6]
    assert t.requests[3].headers["if-match"] == '"7"'
    assert t.requests[0].headers["authorization"] == "Bearer key"


@pytest.mark.anyio
async def test_async_retries():
    t = Replies((503, {}), (429, {"Retry-After": "0.01"}))
    async with agentmem.AsyncClient("http://test", "key", retry_base=0.001,
                                    http_client=httpx.AsyncClient(transport=httpx.MockTransport(t))) as c:
        assert (await c.create("hello"))["id"] == "m1"
    assert len(t.requests) == 3 and len({r.headers["idempotency-key"] for r in t.requests}) == 1


@pytest.mark.parametrize("args", [("", "k"), ("ftp://x", "k"), ("http://x", "")])
def test_constructor_rejects_bad_arguments(args):
    with pytest.raises(ValueError):
        agentmem.Client(*args)


def test_timeout_is_an_api_timeout_error():
    """A server that accepts the connection and never answers."""
    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        with agentmem.Client(f"http://127.0.0.1:{port}", "key", timeout=0.2) as c:
            with pytest.raises(agentmem.APITimeoutError):
                c.count()
            with pytest.raises(TimeoutError):
                c.get("m1", timeout=0.1)


def test_connection_refused_is_an_api_connection_error():
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    with agentmem.Client(f"http://127.0.0.1:{port}", "key") as c:
        with pytest.raises(agentmem.APIConnectionError):
            c.count()


@pytest.mark.parametrize("status,body,want_id,want_created", [
    (201, {"id": "m1", "content": {"text": "a"}}, "m1", True),
    (200, {"id": "m1", "content": {"text": "a"}}, "m1", False),
    (200, {"memory": {"id": "m2", "content": {"text": "a"}}, "created": True}, "m2", True),
])
def test_put_answers(status, body, want_id, want_created):
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body)
    c = agentmem.Client("http://test", "key", http_client=httpx.Client(transport=httpx.MockTransport(reply)))
    m, created = c.put_by_key("k", "a")
    assert (m["id"], created) == (want_id, want_created)


def test_put_answer_without_the_memory_reads_it():
    def reply(request: httpx.Request) -> httpx.Response:
        if request.method == "PUT":
            return httpx.Response(200, json={"id": "m3", "duplicate": True})
        return httpx.Response(200, json={"id": "m3", "content": {"text": "read back"}})
    c = agentmem.Client("http://test", "key", http_client=httpx.Client(transport=httpx.MockTransport(reply)))
    m, created = c.put_by_key("k", "a")
    assert (m["content"]["text"], created) == ("read back", False)
