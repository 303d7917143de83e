"""Agent state against the real memoryd: workstreams, relations, restore, and the context's providers and cache."""

from __future__ import annotations

import pytest

import agentmem
from conftest import KEY_AGENT_X, KEY_AGENT_Y, KEY_ORG_B


@pytest.fixture
def x(url):
    with agentmem.Client(url, KEY_AGENT_X) as c:
        yield c


def test_workstream_lifecycle(url, x, uniq):
    ws_id = "ws-" + uniq
    created = x.create_workstream({"id": ws_id, "name": "Launch", "limit": 5})
    assert created["id"] == ws_id and created["limit"] == 5 and created["visibility"] == "agent"
    for i, text in enumerate(["ship on Friday", "freeze the schema", "book the room", "print the badges",
                              "order the cake", "test the demo"]):
        block = x.append_workstream_entry(ws_id, "chief", text, importance=0.9 if i == 0 else None)
    assert len(block["entries"]) <= 5 and block["entries"][-1]["text"] == "test the demo"
    got = x.get_workstream(ws_id)
    assert got["history"] and got["entries"] == block["entries"]
    assert ws_id in [w["id"] for w in x.list_workstreams(limit=1000)["workstreams"]]
    for key in (KEY_AGENT_Y, KEY_ORG_B):
        with agentmem.Client(url, key) as other, pytest.raises(agentmem.NotFoundError):
            other.get_workstream(ws_id)
    ctx = x.context("", workstream_id=ws_id, providers=["block"], budget_tokens=600, reserve_tokens=500)
    assert [s["provider"] for s in ctx["sections"]] == ["block"] and ctx["usedTokens"] <= 100
    assert "test the demo" in ctx["context"]
    x.delete_workstream(ws_id)
    with pytest.raises(agentmem.NotFoundError):
        x.get_workstream(ws_id)


def test_relations_restore_and_context_cache(url, x, uniq):
    a = x.create({"type": "fact", "content": {"text": f"the launch is Friday {uniq}"}})["id"]
    v = x.create({"type": "fact", "content": {"text": f"the venue holds forty {uniq}"}})["id"]
    rel = x.create_relation(a, v, "depends_on")
    assert rel["id"] and rel["confidence"] == 1
    with agentmem.Client(url, KEY_AGENT_Y) as y, pytest.raises(agentmem.NotFoundError):
        y.create_relation(v, a, "supports")
    assert [r["id"] for r in x.list_relations(a)] == [rel["id"]]
    x.delete_relation(rel["id"])
    assert x.list_relations(a) == []

    assert x.archive_memory(v, reason="stale")["archived"] is True
    assert x.restore_memory(v)["archived"] is False

    args = dict(budget_tokens=800, reserve_tokens=500, providers=["core", "facts", "recent"], message_id="msg-" + uniq)
    first = x.context(f"when is the launch {uniq}", **args)
    assert [s["provider"] for s in first["sections"]] == ["core", "facts", "recent"]
    assert first["usedTokens"] <= 300 and not first.get("cached")
    assert x.context(f"when is the launch {uniq}", **args).get("cached") is True
    x.create(f"a write {uniq}")
    assert not x.context(f"when is the launch {uniq}", **args).get("cached")


@pytest.mark.anyio
async def test_async_workstreams(url, uniq):
    async with agentmem.AsyncClient(url, KEY_AGENT_X) as c:
        ws_id = "aws-" + uniq
        await c.create_workstream({"id": ws_id})
        block = await c.append_workstream_entry(ws_id, "cto", "freeze the schema")
        assert block["entries"][0]["role"] == "cto"
        assert (await c.get_workstream(ws_id))["entries"][0]["text"] == "freeze the schema"
        await c.delete_workstream(ws_id)
