"""Serving end users against the real memoryd: acting for a user, tokens and the registries."""

from __future__ import annotations

import pytest

import agentmem
from conftest import KEY_ORG_A


@pytest.fixture(scope="module")
def org(url):
    with agentmem.Client(url, KEY_ORG_A) as c:
        yield c


@pytest.fixture
def people(org, uniq):
    """Alice and Bob, one org key's end users in rooms of their own: Bob's OpenAI-shaped turn and user
    memory, Alice's user memory and a shared one."""
    p = {"u": uniq, "alice": f"alice-{uniq}", "bob": f"bob-{uniq}", "room_a": f"room-alice-{uniq}",
         "room_b": f"room-bob-{uniq}"}
    org.create_room({"id": p["room_a"], "participants": [p["alice"]]})
    turns = org.add_messages([{"role": "user", "content": f"I am allergic to peanuts, remember that {uniq}"}],
                             room_id=p["room_b"], user_id=p["bob"])
    p["bob_msg"] = turns["memories"][0]["id"]
    p["bob_mem"] = org.create({"visibility": "user", "userId": p["bob"], "entityId": p["bob"],
                               "content": {"text": f"I live at 12 Elm Street, Springfield {uniq}"}})["id"]
    p["alice_mem"] = org.create({"visibility": "user", "userId": p["alice"], "entityId": p["alice"],
                                 "content": {"text": f"I love hiking in the Alps {uniq}"}})["id"]
    p["shared"] = org.create({"visibility": "shared", "content": {"text": f"The Springfield clinic closes at six {uniq}"}})["id"]
    msg = org.get(p["bob_msg"])
    assert (msg["type"], msg["visibility"], msg["entityId"], msg["roomId"]) == ("message", "room", p["bob"], p["room_b"])
    assert org.get(p["bob_mem"])["userId"] == p["bob"]
    return p


def _owner(p, m) -> str:
    for who in (p["alice"], p["bob"]):
        if who in (m.get("userId"), m.get("entityId")):
            return who
    return ""


def test_acting_for_alice_hides_bob(org, people):
    p = people
    query = f"allergic peanuts Elm Street Springfield hiking Alps {p['u']}"
    for mode in ("keyword", "semantic", "hybrid", "full"):
        res = org.search(query, mode=mode, k=100, filters={"userId": p["alice"]})
        owners = {_owner(p, r["memory"]) for r in res["results"]}
        assert p["bob"] not in owners, mode
        if mode == "keyword":
            ids = {r["memory"]["id"] for r in res["results"]}
            assert {p["alice_mem"], p["shared"]} <= ids
    admin = {r["memory"]["id"] for r in org.search(query, mode="keyword", k=100)["results"]}
    assert {p["bob_mem"], p["bob_msg"]} <= admin

    listed = org.list(user_id=p["alice"], limit=1000)["memories"]
    assert p["alice_mem"] in {m["id"] for m in listed}
    assert all(_owner(p, m) != p["bob"] for m in listed)
    assert org.count(user_id=p["alice"], entity_id=p["bob"]) == 0
    assert org.count(user_id=p["bob"], entity_id=p["bob"]) >= 2
    assert org.count(room_id=p["room_a"], entity_id=p["bob"]) == 0

    ctx = org.context(f"What am I allergic to, and where do I live? {p['u']}", user_id=p["alice"], room_id=p["room_a"],
                      budget_tokens=2000)
    # Bob's own words (his marker): other suites' shared memories may name peanuts.
    assert f"peanuts, remember that {p['u']}" not in ctx["context"] and f"Elm Street, Springfield {p['u']}" not in ctx["context"]
    bobs = org.context(f"What am I allergic to, and where do I live? {p['u']}", user_id=p["bob"], budget_tokens=2000)
    assert "Elm Street" in bobs["context"]

    ks = org.knowledge_search(text="Who is allergic to peanuts?", filters={"userId": p["alice"]}, limit=100)
    assert all(_owner(p, m["memory"]) != p["bob"] for m in ks["memories"] or [])
    assert org.knowledge_entities(user_id=p["alice"], prefix="bob-")["entities"] in (None, [])
    # Other suites' shared memories of the org may name peanuts; none of Bob's terms (his marker) may show.
    assert [t for t in org.knowledge_terms(user_id=p["alice"], prefix="peanu") if p["u"] in t["term"]] == []
    assert org.knowledge_topics(user_id=p["alice"], limit=5)["nextCursor"] is not None

    exported = [line["memory"] for line in org.export(user_id=p["alice"]) if line["kind"] == "memory"]
    assert p["alice_mem"] in {m["id"] for m in exported}
    assert all(_owner(p, m) != p["bob"] for m in exported)


def test_token_round_trip(org, url, people):
    p = people
    tok = org.create_token(p["alice"], grants=["read", "write"], ttl_seconds=600)
    assert (tok["userId"], tok["orgId"], tok["grants"]) == (p["alice"], "org-a", ["read", "write"]) and tok["token"]
    with pytest.raises(ValueError):
        agentmem.Client(url, KEY_ORG_A, token=tok["token"])
    with agentmem.Client(url, token=tok["token"]) as alice:
        ids = {r["memory"]["id"] for r in alice.search(f"peanuts Elm Street hiking Alps {p['u']}", mode="keyword", k=100)["results"]}
        assert p["alice_mem"] in ids and not ids & {p["bob_mem"], p["bob_msg"]}
        with pytest.raises(agentmem.NotFoundError):
            alice.get(p["bob_mem"])
        with pytest.raises(agentmem.PermissionDeniedError):
            alice.list(user_id=p["bob"])
        with pytest.raises(agentmem.PermissionDeniedError):
            alice.create_token(p["bob"])
        mine = alice.create({"visibility": "user", "content": {"text": f"My passport ends in 42 {p['u']}"}})
        assert org.get(mine["id"])["userId"] == p["alice"]
    bad = tok["token"][:-2] + ("AA" if not tok["token"].endswith("AA") else "BB")
    with agentmem.Client(url, token=bad) as tampered:
        with pytest.raises(agentmem.AuthenticationError):
            tampered.count()


def test_registries(org, uniq):
    e = org.create_entity({"id": f"dana-{uniq}", "names": ["Dana", "D."], "metadata": {"tier": "gold"}})
    assert (e["names"], e["version"]) == (["Dana", "D."], 1)
    assert org.get_entity(e["id"])["metadata"] == {"tier": "gold"}
    e2 = org.update_entity(e["id"], {"names": ["Dana", "Danielle"]}, if_match=e["version"])
    assert e2["version"] == 2
    with pytest.raises(agentmem.APIError) as stale:
        org.update_entity(e["id"], {"names": ["Dee"]}, if_match=e["version"])
    assert stale.value.is_stale
    assert e["id"] in {x["id"] for x in org.list_entities(limit=1000)["entities"]}

    w = org.create_world({"name": f"Guild {uniq}", "serverId": f"guild-{uniq}"})
    assert org.update_world(w["id"], {"name": f"Renamed {uniq}"})["name"] == f"Renamed {uniq}"
    assert org.get_world(w["id"])["serverId"] == f"guild-{uniq}"
    assert w["id"] in {x["id"] for x in org.list_worlds(limit=1000)["worlds"]}

    r = org.create_room({"id": f"general-{uniq}", "worldId": w["id"], "participants": [e["id"]]})
    assert [x["id"] for x in org.list_rooms(world_id=w["id"])["rooms"]] == [r["id"]]
    assert set(org.add_participant(r["id"], f"eli-{uniq}")["participants"]) == {e["id"], f"eli-{uniq}"}
    assert org.remove_participant(r["id"], e["id"])["participants"] == [f"eli-{uniq}"]
    assert org.list_participants(r["id"])["participants"] == [f"eli-{uniq}"]
    assert org.update_room(r["id"], {"type": "DM"})["type"] == "DM"
    assert org.get_room(r["id"])["worldId"] == w["id"]
    with pytest.raises(agentmem.BadRequestError) as bad:
        org.create_room({"worldId": f"no-such-world-{uniq}"})
    assert "worldId" in bad.value.message

    org.delete_room(r["id"])
    org.delete_world(w["id"])
    org.delete_entity(e["id"], if_match=e2["version"])
    for get, item in ((org.get_room, r), (org.get_world, w), (org.get_entity, e)):
        with pytest.raises(agentmem.NotFoundError):
            get(item["id"])


@pytest.mark.anyio
async def test_async_acting_and_token(url, people):
    p = people
    async with agentmem.AsyncClient(url, KEY_ORG_A) as org:
        ctx = await org.context(f"What am I allergic to? {p['u']}", user_id=p["alice"])
        assert f"peanuts, remember that {p['u']}" not in ctx["context"]
        tok = await org.create_token(p["alice"])
        room = await org.get_room(p["room_a"])
        assert room["participants"] == [p["alice"]]
    async with agentmem.AsyncClient(url, token=tok["token"]) as alice:
        assert await alice.count(entity_id=p["bob"]) == 0
        ids = [m["id"] async for m in alice.iter_memories(limit=500)]
        assert p["alice_mem"] in ids and p["bob_mem"] not in ids
