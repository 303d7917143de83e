"""A LangGraph BaseStore whose items are agentmem memories.

An item (namespace, key, value) is the memory keyed ``lg:<hash of namespace
and key>`` (PUT /v1/memories/by-key), in the scope of the API key: its text is
the value's ``text`` or ``content`` field when it is a string, else the value
as JSON (what search ranks), and its metadata carries the namespace, one field
a level (``lgNs0``, ``lgNs1``...), its depth, the key and the value itself.
A namespace prefix is a metadata filter on the levels, so reads are narrowed
by the server; ``filter`` on the value is applied to each item here.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from agentmem import Client, NotFoundError
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

# The metadata mark of every memory this store writes (metadata.lgStore), so
# a listing of the store's items never sees the agent's other memories.
MARK = "langgraph"
_PAGE = 100


def memory_key(namespace: tuple[str, ...], key: str) -> str:
    """The by-key key of an item: a hash, since namespace and key may be longer than the 128 characters allowed."""
    return "lg:" + hashlib.sha256(json.dumps([list(namespace), key]).encode()).hexdigest()[:40]


def _ns_metadata(prefix: tuple[str, ...]) -> dict[str, Any]:
    return {"lgStore": MARK, **{f"lgNs{i}": part for i, part in enumerate(prefix)}}


def _time(ms: int | None) -> datetime:
    return datetime.fromtimestamp((ms or 0) / 1000, tz=timezone.utc)


def _text(value: dict[str, Any]) -> str:
    for field in ("text", "content"):
        if isinstance(value.get(field), str) and value[field]:
            return value[field]
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _item(m: dict[str, Any], score: float | None = None, cls: type = Item) -> Item:
    md = m.get("metadata") or {}
    ns = tuple(md.get("lgNamespace") or ())
    args = dict(namespace=ns, key=md.get("lgKey", ""), value=md.get("lgValue") or {},
                created_at=_time(m.get("createdAt")), updated_at=_time(m.get("updatedAt")))
    if cls is SearchItem:
        return SearchItem(score=score, **args)
    return Item(**args)


_OPS = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def matches(value: dict[str, Any], flt: dict[str, Any] | None) -> bool:
    """Whether value passes a LangGraph filter: equality per field, or an operator object ($eq, $ne, $gt, $gte, $lt, $lte)."""
    for field, want in (flt or {}).items():
        got = value.get(field)
        if isinstance(want, dict) and want and all(k.startswith("$") for k in want):
            for op, arg in want.items():
                if op not in _OPS:
                    raise ValueError(f"filter.{field}: unknown operator {op!r}; one of {', '.join(_OPS)}")
                try:
                    if not _OPS[op](got, arg):
                        return False
                except TypeError:
                    return False
        elif got != want:
            return False
    return True


def _ns_matches(ns: tuple[str, ...], op: ListNamespacesOp) -> bool:
    for cond in op.match_conditions or ():
        path = tuple(cond.path)
        part = ns[: len(path)] if cond.match_type == "prefix" else ns[-len(path):] if path else ()
        if len(ns) < len(path) or any(p != "*" and p != q for p, q in zip(path, part)):
            return False
    return True


class AgentMemStore(BaseStore):
    """A LangGraph store over agentmem: give it a Client (an API key of an agent, or of the org)."""

    supports_ttl = False

    def __init__(self, client: Client) -> None:
        self.client = client

    # The operations, one at a time: the API has no batch read by key.
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Runs ops in order and returns their results."""
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """batch in a worker thread (the client is synchronous)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise TypeError(f"op: unsupported operation {type(op).__name__}")

    def _get(self, op: GetOp) -> Item | None:
        try:
            return _item(self.client.get_by_key(memory_key(op.namespace, op.key)))
        except NotFoundError:
            return None

    def _put(self, op: PutOp) -> None:
        key = memory_key(op.namespace, op.key)
        if op.value is None:
            try:
                self.client.delete_by_key(key)
            except NotFoundError:
                pass
            return None
        value = dict(op.value)
        md = {**_ns_metadata(op.namespace), "lgDepth": len(op.namespace), "lgNamespace": list(op.namespace),
              "lgKey": op.key, "lgValue": value}
        self.client.put_by_key(key, {"content": {"text": _text(value)}, "metadata": md})
        return None

    def _memories(self, prefix: tuple[str, ...]) -> Iterable[dict[str, Any]]:
        """Every item memory under prefix, newest first."""
        return self.client.iter_memories(limit=_PAGE, metadata=_ns_metadata(prefix))

    def _search(self, op: SearchOp) -> list[SearchItem]:
        want = op.offset + op.limit
        if op.query:
            # Ranked by the server; the value filter may drop some, so ask for more.
            res = self.client.search(op.query, k=min(100, max(want * 3, 10)),
                                     filters={"metadata": _ns_metadata(op.namespace_prefix)})
            hits = [(r["memory"], r["score"]) for r in res["results"]]
        else:
            hits = ((m, None) for m in self._memories(op.namespace_prefix))
        out: list[SearchItem] = []
        for m, score in hits:
            item = _item(m, score, SearchItem)
            if matches(item.value, op.filter):
                out.append(item)
                if len(out) >= want:
                    break
        return out[op.offset:]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        seen: set[tuple[str, ...]] = set()
        for m in self._memories(()):
            ns = tuple((m.get("metadata") or {}).get("lgNamespace") or ())
            if op.max_depth is not None:
                ns = ns[: op.max_depth]
            if _ns_matches(ns, op):
                seen.add(ns)
        return sorted(seen)[op.offset: op.offset + op.limit]
