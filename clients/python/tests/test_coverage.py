"""Every operation of the OpenAPI document has a method of Client and of
AsyncClient, except those the document marks x-agentmem-no-client (a page,
a script, MCP). An operation's method is its operationId in snake_case,
a leading patch becoming update, unless ALIASES names it otherwise. The Go
(pkg/client/coverage_test.go) and TypeScript (test/coverage.test.ts)
clients keep the same rule in their own styles. Needs no server."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

import agentmem

OPENAPI = Path(__file__).resolve().parents[3] / "pkg" / "transport" / "contract" / "openapi.json"

# The leading verbs the client names otherwise: a PATCH is an update.
VERBS = {"patch": "update"}

# The operations whose method is named otherwise, each with its reason.
ALIASES = {
    "health": "healthz",  # after its path, /v1/healthz
    "createMemories": "create",  # memories are the client's noun (create_batch sends several)
    "listMemories": "list",  # one page; iter_memories iterates over all of them
    "countMemories": "count",  # memories are the client's noun
    "deleteMemories": "delete_where",  # deletes what the filters select, beside delete of one id
    "getMemory": "get",  # memories are the client's noun
    "patchMemory": "update",  # memories are the client's noun
    "deleteMemory": "delete",  # memories are the client's noun
    "putMemoryByKey": "put_by_key",  # memories are the client's noun
    "getMemoryByKey": "get_by_key",  # as put_by_key
    "deleteMemoryByKey": "delete_by_key",  # as put_by_key
    "memoryRelations": "list_relations",  # as list_entities, list_rooms...
    "exportMemories": "export",  # memories are the client's noun (import is a keyword: import_memories)
    "postMessages": "add_messages",  # the turns are its first argument
    "createDocument": "upload_document",  # the client sends the document's bytes
}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def python_method(operation_id: str) -> str:
    """The name of an operation's method in the Python client."""
    if operation_id in ALIASES:
        return ALIASES[operation_id]
    for verb, method in VERBS.items():
        rest = operation_id[len(verb):]
        if operation_id.startswith(verb) and rest[:1].isupper():
            return snake(method + rest)
    return snake(operation_id)


def operations() -> list[tuple[str, str, str]]:
    """(operationId, "METHOD path", why no client or "") of every operation."""
    doc = json.loads(OPENAPI.read_text())
    out = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
                out.append((op["operationId"], f"{method.upper()} {path}", op.get("x-agentmem-no-client", "")))
    return sorted(out)


@pytest.mark.parametrize("cls", [agentmem.Client, agentmem.AsyncClient], ids=lambda c: c.__name__)
def test_every_operation_has_a_method(cls):
    missing = []
    covered = 0
    for op_id, route, no_client in operations():
        if no_client:
            continue
        name = python_method(op_id)
        fn = getattr(cls, name, None)
        is_async = inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn)
        if fn is None or not callable(fn) or (cls is agentmem.AsyncClient) != is_async:
            missing.append(f"{op_id} ({route}): want {cls.__name__}.{name}")
            continue
        covered += 1
    print(f"{cls.__name__}: {covered} operations with a method, {len(missing)} missing")
    assert not missing, "no method:\n" + "\n".join(missing)


def test_aliases_name_operations():
    ids = {op_id for op_id, _, no_client in operations() if not no_client}
    assert not set(ALIASES) - ids, "ALIASES names operations the clients do not cover: drop them"


@pytest.mark.parametrize("cls", [agentmem.Client, agentmem.AsyncClient], ids=lambda c: c.__name__)
def test_arguments_are_snake_case(cls):
    """One naming style: the wire's camelCase stays in the dicts sent, never in a signature."""
    camel = []
    for name, fn in inspect.getmembers(cls, callable):
        if name.startswith("_"):
            continue
        for param in inspect.signature(fn).parameters:
            if param != param.lower():
                camel.append(f"{cls.__name__}.{name}({param})")
    assert not camel, "camelCase arguments: " + ", ".join(camel)


@pytest.mark.parametrize("operation_id,method", [
    ("getEntity", "get_entity"), ("listWorkstreams", "list_workstreams"), ("patchRoom", "update_room"),
    ("createToken", "create_token"), ("whoami", "whoami"), ("getMemory", "get"), ("patchy", "patchy"),
])
def test_python_method(operation_id, method):
    assert python_method(operation_id) == method
