"""The client against the real memoryd (scripts/clients-test.sh)."""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest

import agentmem
from conftest import KEY_AGENT_X, KEY_AGENT_Y, KEY_LIMITED, KEY_ORG_A, KEY_ORG_B


@pytest.fixture(scope="module")
def clients(url):
    """One sync client per key, shared by the module's tests."""
    made: dict[str, agentmem.Client] = {}

    def get(key: str) -> agentmem.Client:
        if key not in made:
            made[key] = agentmem.Client(url, key)
        return made[key]

    yield get
    for c in made.values():
        c.close()


@pytest.fixture
def mem(clients):
    return clients(KEY_ORG_A)


def test_memory_lifecycle(mem, uniq):
    text = f"Dana prefers jasmine tea in the afternoon {uniq}"
    res = mem.create({"type": "fact", "kind": "preference", "importance": 0.8, "entityId": "dana",
                      "content": {"text": text}, "metadata": {"source": "onboarding"}})
    assert res["id"] and res["duplicate"] is False
    again = mem.create({"type": "fact", "content": {"text": text.upper()}})
    assert again == {"id": res["id"], "duplicate": True}

    m = mem.get(res["id"])
    assert (m["content"]["text"], m["type"], m["kind"], m["importance"], m["orgId"], m["metadata"]) == \
        (text, "fact", "preference", 0.8, "org-a", {"source": "onboarding"})

    updated = mem.update(m["id"], {"content": {"text": f"Dana prefers green tea now {uniq}"}}, if_match=m["version"])
    assert updated["version"] == m["version"] + 1
    with pytest.raises(agentmem.APIError) as stale:
        mem.update(m["id"], {"importance": 0.1}, if_match=m["version"])
    assert stale.value.is_stale and stale.value.status in (409, 412)
    assert isinstance(stale.value, (agentmem.ConflictError, agentmem.PreconditionFailedError))
    assert mem.get(m["id"])["importance"] == 0.8

    mem.delete(m["id"])
    with pytest.raises(agentmem.NotFoundError) as gone:
        mem.get(m["id"])
    assert gone.value.code == "not_found" and gone.value.status == 404 and gone.value.request_id


def test_batch_list_pagination(mem, uniq):
    room = f"room-{uniq}"
    res = mem.create_batch([{"type": "message", "roomId": room, "entityId": "dana",
                             "content": {"text": f"turn {i} of the pagination test"}} for i in range(7)])
    ids = {r["id"] for r in res}
    assert len(ids) == 7 and not any(r["duplicate"] for r in res)
    page = mem.list(room_id=room, limit=3)
    assert len(page["memories"]) == 3 and page["nextCursor"]
    seen = [m["id"] for m in mem.iter_memories(room_id=room, type=["message"], limit=3)]
    assert len(seen) == 7 and set(seen) == ids
    assert mem.count(room_id=room) == 7
    assert mem.delete_where(room_id=room) == 7
    assert mem.count(room_id=room) == 0
    with pytest.raises(TypeError):
        mem.list(roomId=room)


@pytest.mark.parametrize("mode,lists", [("keyword", ["keyword"]), ("semantic", ["semantic"]),
                                        ("hybrid", ["keyword", "semantic"]), (None, ["keyword", "semantic"])])
def test_search_modes(mem, uniq, mode, lists):
    room = f"search-{uniq}"
    target = mem.create({"type": "fact", "roomId": room, "content": {"text": f"Priya's favourite food is margherita pizza {uniq}"}})
    mem.create({"type": "fact", "roomId": room, "content": {"text": f"The quarterly report is due on Friday {uniq}"}})
    res = mem.search("favourite food margherita pizza", mode=mode, k=5, filters={"roomId": room})
    top = res["results"][0]
    assert top["memory"]["id"] == target["id"] and top["score"] > 0
    for name in lists:
        assert name in res["lists"] and top["scores"][name]["rank"] == 1


def test_invalid_input_names_the_field(mem):
    with pytest.raises(agentmem.BadRequestError) as e:
        mem.search("pizza", k=1000)
    assert e.value.code == "invalid" and e.value.status == 400 and "k" in e.value.message


def test_messages_and_context(mem, uniq):
    room = f"chat-{uniq}"
    res = mem.add_messages([{"roomId": room, "entityId": "dana", "content": {"text": f"My flight to Lisbon leaves Friday {uniq}"}},
                            {"roomId": room, "entityId": "agent", "content": {"text": "Noted, I will remind you Thursday."}}])
    assert len(res["memories"]) == 2 and res["extractionQueued"] is True
    assert mem.get(res["memories"][0]["id"])["type"] == "message"
    with pytest.raises(agentmem.BadRequestError) as e:
        mem.add_messages([{"roomId": room, "content": {"text": "no speaker"}}])
    assert "entityId" in e.value.message
    ctx = mem.context("when does the Lisbon flight leave", room_id=room, budget_tokens=500)
    assert f"Lisbon leaves Friday {uniq}" in ctx["context"]
    assert 0 < ctx["usedTokens"] <= 500 and ctx["budgetTokens"] == 500
    placed = {i.get("id") for s in ctx["sections"] for i in s["items"]}
    assert res["memories"][0]["id"] in placed


@pytest.mark.parametrize("request_", [
    {"query": {"select": {"entity": {"name": "Dolomites"}}}},
    {"text": "Where is the hike?"},
])
def test_knowledge_search(mem, uniq, request_):
    room = f"kn-{uniq}"
    res = mem.create({"type": "message", "roomId": room, "entityId": "ana", "content": {"text": "We are hiking the Dolomites in September"}})
    out = mem.knowledge_search(**request_, filters={"roomId": room})
    assert out["memories"][0]["memory"]["id"] == res["id"] and out["expression"]
    if "query" in request_:
        assert any(e["name"].lower() == "dolomites" and e["sourceCount"] >= 1 for e in out["entities"])


def test_knowledge_search_errors(mem):
    with pytest.raises(agentmem.BadRequestError) as e:
        mem.knowledge_search(query={"select": {"entity": {}}})
    assert "query.select.entity" in e.value.message
    with pytest.raises(ValueError):
        mem.knowledge_search()


def test_documents(mem, uniq):
    name = f"guides/leave-{uniq}.md"
    doc = mem.upload_document(name, f"# Leave\n\nVacation requests go to your manager {uniq}.")
    assert doc["key"].endswith("/" + name) and doc["state"] in ("indexed", "pending")
    got = mem.get_document(doc["id"])
    assert got["state"] == "indexed" and got["fragments"] >= 1
    binary = mem.upload_document(f"notes-{uniq}.txt", f"Badge renewals happen every March {uniq}".encode())
    assert binary["state"] != "failed"
    hits = mem.search(f"vacation requests manager {uniq}", mode="keyword", k=3, filters={"documentId": doc["id"]})
    assert uniq in hits["results"][0]["memory"]["content"]["text"]
    listed = {d["id"] for d in mem.iter_documents(limit=1)}
    assert {doc["id"], binary["id"]} <= listed
    for d in (doc, binary):
        mem.delete_document(d["id"])
        with pytest.raises(agentmem.NotFoundError):
            mem.get_document(d["id"])


@pytest.mark.parametrize("key,visible", [(KEY_AGENT_Y, False), (KEY_ORG_B, False), (KEY_ORG_A, True)])
def test_isolation(clients, uniq, key, visible):
    room = f"iso-{uniq}"
    x, other = clients(KEY_AGENT_X), clients(key)
    mine = x.create({"roomId": room, "content": {"text": f"Agent X: the customer's renewal is due in March {uniq}"}})
    assert x.get(mine["id"])["agentId"] == "x"
    if visible:
        assert other.get(mine["id"])["id"] == mine["id"]
    else:
        with pytest.raises(agentmem.NotFoundError):
            other.get(mine["id"])
        with pytest.raises(agentmem.NotFoundError):
            other.delete(mine["id"])
    assert len(other.list(room_id=room)["memories"]) == (1 if visible else 0)
    found = {r["memory"]["id"] for r in other.search(f"customer renewal due in March {uniq}", mode="keyword", k=10)["results"]}
    assert (mine["id"] in found) == visible
    assert x.get(mine["id"])["id"] == mine["id"]


def test_agent_cannot_name_another_agent(clients):
    with pytest.raises(agentmem.PermissionDeniedError) as e:
        clients(KEY_AGENT_Y).list(agent_id="x")
    assert e.value.code == "forbidden"


def test_unknown_key(url):
    with agentmem.Client(url, "clients-test-not-a-key-000000") as c:
        with pytest.raises(agentmem.AuthenticationError) as e:
            c.get("anything")
    assert e.value.status == 401 and e.value.code == "unauthorized"


def test_put_by_key(mem, clients, uniq):
    key = f"prefs/{uniq}"
    try:
        m, created = mem.put_by_key(key, "theme: dark")
    except agentmem.APIError as e:
        if e.status == 405 or (e.status == 404 and "no route" in e.message):
            pytest.skip(f"the server has no PUT /v1/memories/by-key/{{key}}: {e}")
        raise
    assert created and m["id"] and m["content"]["text"] == "theme: dark"
    m2, created = mem.put_by_key(key, "theme: light")
    assert not created and m2["id"] == m["id"] and m2["content"]["text"] == "theme: light"
    assert mem.get(m["id"])["content"]["text"] == "theme: light"
    clients(KEY_ORG_B).put_by_key(key, "org b's own")
    assert mem.get(m["id"])["content"]["text"] == "theme: light"


def test_rate_limit_retries(limited_url):
    """One request a second per key: without retries a burst is refused
    with a Retry-After; with them every request of a burst succeeds."""
    def burst(client: agentmem.Client, n: int) -> list[BaseException | None]:
        with concurrent.futures.ThreadPoolExecutor(n) as pool:
            futures = [pool.submit(client.count) for _ in range(n)]
            return [f.exception() for f in futures]

    with agentmem.Client(limited_url, KEY_LIMITED, max_retries=0) as c:
        errors = [e for e in burst(c, 6) if e is not None]
    assert errors and all(isinstance(e, agentmem.RateLimitError) for e in errors)
    assert errors[0].code == "rate_limited" and errors[0].retry_after and errors[0].retry_after > 0
    with agentmem.Client(limited_url, KEY_LIMITED, max_retries=8, retry_base=0.05, retry_max=1) as c:
        assert burst(c, 3) == [None] * 3


# The async client on the same server.

@pytest.mark.anyio
async def test_async_flow(url, uniq):
    room = f"async-{uniq}"
    async with agentmem.AsyncClient(url, KEY_ORG_A) as mem:
        res = await mem.create_batch([{"type": "fact", "roomId": room, "content": {"text": f"fact {i} about the async client {uniq}"}}
                                      for i in range(5)])
        ids = {r["id"] for r in res}
        assert len(ids) == 5
        seen = [m["id"] async for m in mem.iter_memories(room_id=room, limit=2)]
        assert set(seen) == ids and len(seen) == 5
        m = await mem.get(res[0]["id"])
        updated = await mem.update(m["id"], {"importance": 0.9}, if_match=m["version"])
        assert updated["importance"] == 0.9
        with pytest.raises(agentmem.APIError) as stale:
            await mem.update(m["id"], {"importance": 0.1}, if_match=m["version"])
        assert stale.value.is_stale
        hits = await mem.search(f"fact 3 about the async client {uniq}", mode="keyword", k=5, filters={"roomId": room})
        assert hits["results"][0]["memory"]["id"] == res[3]["id"]
        ctx = await mem.context(f"async client {uniq}", budget_tokens=300)
        assert ctx["usedTokens"] <= 300
        doc = await mem.upload_document(f"async-{uniq}.md", f"# Async\n\nThe async client uploads {uniq}.")
        assert (await mem.get_document(doc["id"]))["state"] == "indexed"
        assert doc["id"] in {d["id"] async for d in mem.iter_documents()}
        await mem.delete_document(doc["id"])
        kn = await mem.knowledge_search(text="async client", filters={"roomId": room})
        assert isinstance(kn["memories"], list)
        assert await mem.delete_where(room_id=room) == 5
        with pytest.raises(agentmem.NotFoundError):
            await mem.get(res[0]["id"])


@pytest.mark.anyio
async def test_async_isolation(url, uniq):
    async with agentmem.AsyncClient(url, KEY_AGENT_X) as x, agentmem.AsyncClient(url, KEY_AGENT_Y) as y:
        mine = await x.create(f"Agent X's async secret {uniq}")
        with pytest.raises(agentmem.NotFoundError):
            await y.get(mine["id"])
        assert mine["id"] not in {r["memory"]["id"] for r in (await y.search(f"async secret {uniq}", mode="keyword"))["results"]}


@pytest.mark.anyio
async def test_async_cancellation(url):
    async with agentmem.AsyncClient(url, KEY_ORG_A) as mem:
        task = asyncio.ensure_future(mem.search("anything"))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (await mem.count()) >= 0
