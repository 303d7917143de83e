"""The server the tests talk to: scripts/clients-test.sh starts memoryd and
sets AGENTMEM_URL (and AGENTMEM_LIMITED_URL, a server limited to one
request a second per key) with the keys below."""

from __future__ import annotations

import os
import uuid

import pytest

KEY_ORG_A = "clients-test-org-a-key-0001"
KEY_AGENT_X = "clients-test-agent-x-key-001"
KEY_AGENT_Y = "clients-test-agent-y-key-001"
KEY_ORG_B = "clients-test-org-b-key-0001"
KEY_LIMITED = "clients-test-limited-key-01"


@pytest.fixture(scope="session")
def url() -> str:
    u = os.environ.get("AGENTMEM_URL")
    if not u:
        pytest.skip("AGENTMEM_URL is not set: run scripts/clients-test.sh")
    return u


@pytest.fixture(scope="session")
def limited_url() -> str:
    u = os.environ.get("AGENTMEM_LIMITED_URL")
    if not u:
        pytest.skip("AGENTMEM_LIMITED_URL is not set: run scripts/clients-test.sh")
    return u


@pytest.fixture
def uniq() -> str:
    """A token unique to this test, so suites sharing a server never deduplicate each other."""
    return uuid.uuid4().hex[:12]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
