"""The fields the API gained, against the real memoryd: workstream reads acting for an end user, and a
knowledge query scoped to a range of a session's messages."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

import agentmem
from conftest import KEY_ORG_A


@pytest.fixture(scope="module")
def org(url):
    with agentmem.Client(url, KEY_ORG_A) as c:
        yield c


def _all_workstreams(c: agentmem.Client, **acting: str) -> list[str]:
    ids: list[str] = []
    cursor = None
    while True:
        page = c.list_workstreams(limit=1000, cursor=cursor, **acting)
        ids += [w["id"] for w in page["workstreams"]]
        cursor = page.get("nextCursor")
        if not cursor:
            return ids


@pytest.mark.parametrize("acting, seen, hidden", [
    ({"user_id": "alice"}, ["alice", "shared"], ["bob"]),
    ({"user_id": "bob"}, ["bob", "shared"], ["alice"]),
    ({}, ["alice", "bob", "shared"], []),  # an org key acting for nobody: the admin view
])
def test_workstreams_acting_for_a_user(org, uniq, acting, seen, hidden):
    users = {"alice": f"alice-ws-{uniq}", "bob": f"bob-ws-{uniq}"}
    blocks = {"alice": f"ws-alice-{uniq}", "bob": f"ws-bob-{uniq}", "shared": f"ws-shared-{uniq}"}
    for who in ("alice", "bob"):
        got = org.create_workstream({"id": blocks[who], "visibility": "user", "userId": users[who]})
        assert got["visibility"] == "user" and got["userId"] == users[who]
    org.create_workstream({"id": blocks["shared"], "visibility": "shared"})
    try:
        as_ = {k: users[v] for k, v in acting.items()}
        listed = _all_workstreams(org, **as_)
        for who in seen:
            assert blocks[who] in listed
            assert org.get_workstream(blocks[who], **as_)["id"] == blocks[who]
        for who in hidden:
            assert blocks[who] not in listed
            with pytest.raises(agentmem.NotFoundError):
                org.get_workstream(blocks[who], **as_)
    finally:
        for b in blocks.values():
            org.delete_workstream(b)


@pytest.mark.anyio
async def test_async_workstreams_acting_for_a_user(url, org, uniq):
    alice, bob = f"alice-aws-{uniq}", f"bob-aws-{uniq}"
    org.create_workstream({"id": f"aws-bob-{uniq}", "visibility": "user", "userId": bob})
    async with agentmem.AsyncClient(url, KEY_ORG_A) as c:
        page = await c.list_workstreams(limit=1000, user_id=alice)
        assert f"aws-bob-{uniq}" not in [w["id"] for w in page["workstreams"]]
        with pytest.raises(agentmem.NotFoundError):
            await c.get_workstream(f"aws-bob-{uniq}", user_id=alice)
        assert (await c.get_workstream(f"aws-bob-{uniq}", user_id=bob))["userId"] == bob
    org.delete_workstream(f"aws-bob-{uniq}")


def _rfc3339(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_knowledge_scope_message_range(org, uniq):
    session = f"sess-{uniq}"
    base = (int(time.time()) - 3600) * 1000
    ids = [org.create({"type": "message", "sessionId": session, "entityId": f"speaker-{uniq}",
                       "createdAt": base + i * 60_000, "content": {"text": f"{text} {uniq}"}})["id"]
           for i, text in enumerate(["Ana booked a hike in the Dolomites", "Bo packed boots for the Dolomites",
                                     "Cy bought maps of the Dolomites", "Di printed tickets for the Dolomites"])]
    select = {"entity": {"name": "Dolomites"}}
    for scope, want in [
        ({"sessionId": session}, ids),
        ({"sessionId": session, "fromMessageId": ids[1], "toMessageId": ids[2]}, ids[1:3]),
        ({"sessionId": session, "fromMessageId": ids[2]}, ids[2:]),
        ({"sessionId": session, "fromTime": _rfc3339(base + 60_000), "toTime": _rfc3339(base + 180_000)}, ids[1:3]),
    ]:
        query: agentmem.KnowledgeQuery = {"select": select, "scope": scope, "limit": 50}
        got = org.knowledge_search(query=query)["memories"] or []
        assert sorted(m["memory"]["id"] for m in got) == sorted(want), scope
    # Each turn has a topic sentence, listed beside the topics.
    topics = org.knowledge_topics(session_id=session, limit=100)["topics"] or []
    assert any(t["kind"] == "sentence" for t in topics), topics
    with pytest.raises(agentmem.BadRequestError) as bad:
        org.knowledge_search(query={"terms": ["dolomites"], "scope": {"fromPosition": 1}})
    assert "scope" in str(bad.value)
