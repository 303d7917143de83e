"""The operations the coverage test holds the client to, over the wire
(scripts/clients-test.sh): history, erasure with its audit entry, export
and import, whoami, a registry, a workstream and the admin calls. The
suites share one org: each test looks for its own unique marker."""

from __future__ import annotations

import json

import pytest

import agentmem
from conftest import KEY_AGENT_X, KEY_ORG_A, KEY_ORG_B


@pytest.fixture
def org(url):
    with agentmem.Client(url, KEY_ORG_A) as c:
        yield c


@pytest.fixture
def other_org(url):
    with agentmem.Client(url, KEY_ORG_B) as c:
        yield c


def test_memory_history(org, uniq):
    key = f"history-{uniq}"
    m, created = org.put_by_key(key, f"first words {uniq}")
    assert created
    org.update(m["id"], {"content": {"text": f"second words {uniq}"}})
    org.archive_memory(m["id"], reason="coverage test")
    org.restore_memory(m["id"])
    h = org.memory_history(m["id"])
    assert h["id"] == m["id"]
    assert [v["op"] for v in h["versions"]] == ["create", "update", "archive", "restore"]
    assert h["versions"][0]["memory"]["content"]["text"] == f"first words {uniq}"
    org.delete_by_key(key)
    with pytest.raises(agentmem.NotFoundError):
        org.memory_history(m["id"])


def test_forget_is_audited(org, uniq):
    session = f"forget-{uniq}"
    for text in (f"the locker code is 4411 {session}", f"the spare key is under the mat {session}"):
        org.create({"type": "message", "sessionId": session, "entityId": "dana", "content": {"text": text}})
    report = org.forget(session_id=session)
    assert report["memories"] == 2 and report["auditId"]
    assert org.count(session_id=session) == 0
    with pytest.raises(agentmem.BadRequestError):
        org.forget()
    entries = []
    cursor = None
    for _ in range(20):
        page = org.audit_log(limit=50, cursor=cursor)
        entries += page["entries"] or []
        cursor = page["nextCursor"]
        if not cursor or any(e["id"] == report["auditId"] for e in entries):
            break
    mine = [e for e in entries if e["id"] == report["auditId"]]
    assert mine and mine[0]["report"]["memories"] == 2 and mine[0]["orgId"] == "org-a"


def test_export_import_round_trip(org, other_org, uniq):
    texts = [f"the harbour ferry leaves at nine {uniq}", f"the lighthouse keeper is Ines {uniq}"]
    for text in texts:
        org.create({"type": "fact", "content": {"text": text}})
    lines = [line for line in org.export() if line["kind"] == "memory" and uniq in line["memory"]["content"]["text"]]
    assert len(lines) == 2
    report = other_org.import_memories(lines)
    assert report["lines"] == 2 and report["memories"]["created"] == 2 and not report["errors"]
    again = other_org.import_memories("".join(json.dumps(line) + "\n" for line in lines))
    assert again["memories"]["created"] == 0
    assert again["memories"]["existing"] + again["memories"].get("duplicate", 0) == 2
    hits = other_org.search(texts[1], mode="keyword", k=5)["results"]
    assert hits and hits[0]["memory"]["content"]["text"] == texts[1] and hits[0]["memory"]["orgId"] == "org-b"


def test_whoami_and_the_document(url, org):
    me = org.whoami()
    assert me["orgId"] == "org-a" and "agentId" not in me and "admin" in me["grants"]
    with agentmem.Client(url, KEY_AGENT_X) as x:
        assert x.whoami()["agentId"] == "x"
    assert org.openapi()["openapi"].startswith("3.1.")


def test_registry_and_workstream(url, uniq):
    with agentmem.Client(url, KEY_AGENT_X) as x:
        entity = x.create_entity({"id": f"ent-{uniq}", "names": [f"Ines {uniq}"]})
        assert x.get_entity(entity["id"])["names"] == [f"Ines {uniq}"]
        updated = x.update_entity(entity["id"], {"names": [f"Ines {uniq}", "the keeper"]}, if_match=entity["version"])
        assert updated["names"][1] == "the keeper"
        x.delete_entity(entity["id"])
        with pytest.raises(agentmem.NotFoundError):
            x.get_entity(entity["id"])

        ws = x.create_workstream({"id": f"ws-{uniq}", "name": "launch", "limit": 5})
        block = x.append_workstream_entry(ws["id"], "plan", f"ship the beta on friday {uniq}")
        assert [e["text"] for e in block["entries"]] == [f"ship the beta on friday {uniq}"]
        assert any(w["id"] == ws["id"] for w in x.list_workstreams(limit=100)["workstreams"])
        x.delete_workstream(ws["id"])


def test_admin_keys_and_usage(url, org, uniq):
    made = org.create_key(["read"], name=f"coverage-{uniq}", agent_id="x")
    assert made["secret"].startswith(made["key"]["prefix"]) and made["key"]["orgId"] == "org-a"
    assert any(k["id"] == made["key"]["id"] and k["name"] == f"coverage-{uniq}" for k in org.list_keys())
    with agentmem.Client(url, made["secret"]) as new:
        me = new.whoami()
        assert me["agentId"] == "x" and me["grants"] == ["read"]
        with pytest.raises(agentmem.PermissionDeniedError):
            new.list_keys()
        assert org.revoke_key(made["key"]["id"])["revokedAt"]
        with pytest.raises(agentmem.AuthenticationError):
            new.whoami()
    usage = org.usage()
    assert usage["orgId"] == "org-a" and usage["limits"]["memories"] > 0


def test_admin_settings_and_consolidation(other_org, uniq):
    # Org B's: the suites that share the server keep their data in org A.
    cur = other_org.get_extraction_settings()
    want: agentmem.ExtractionSettings = {**cur["settings"], "instructions": f"coverage {uniq}",
                                         "providedKeys": {"Ticket": "subject", "assignee": "to"}}
    put = other_org.put_extraction_settings(want, if_match=cur["version"] or None)
    assert put["settings"]["instructions"] == want["instructions"] and put["version"] > cur["version"]
    assert put["settings"]["providedKeys"] == {"ticket": "subject", "assignee": "to"}  # stored in lower case
    with pytest.raises(agentmem.APIError) as stale:
        other_org.put_extraction_settings(want, if_match=put["version"] + 5)
    assert stale.value.is_stale
    run = other_org.consolidate()
    assert run["orgId"] == "org-b" and run["startedAt"]
    assert other_org.last_consolidation()["startedAt"] >= run["startedAt"]


@pytest.mark.anyio
async def test_async_operations(url, uniq):
    async with agentmem.AsyncClient(url, KEY_ORG_A) as c:
        assert (await c.whoami())["orgId"] == "org-a"
        m = await c.create({"type": "fact", "sessionId": f"async-{uniq}", "content": {"text": f"async words {uniq}"}})
        assert [v["op"] for v in (await c.memory_history(m["id"]))["versions"]] == ["create"]
        assert (await c.forget(session_id=f"async-{uniq}"))["memories"] == 1
        assert isinstance(await c.list_keys(), list)
