"""The server the tests talk to: scripts/clients-test.sh starts memoryd and sets AGENTMEM_URL."""

from __future__ import annotations

import os
import uuid

import pytest
from agentmem import Client

KEY_AGENT_X = "clients-test-agent-x-key-001"
KEY_AGENT_Y = "clients-test-agent-y-key-001"


@pytest.fixture(scope="session")
def url() -> str:
    u = os.environ.get("AGENTMEM_URL")
    if not u:
        pytest.skip("AGENTMEM_URL is not set: run scripts/clients-test.sh")
    return u


@pytest.fixture
def client(url: str):
    with Client(url, KEY_AGENT_X) as c:
        yield c


@pytest.fixture
def other(url: str):
    with Client(url, KEY_AGENT_Y) as c:
        yield c


@pytest.fixture
def uniq() -> str:
    """A namespace root unique to this test, so tests sharing a server never see each other's items."""
    return "t" + uuid.uuid4().hex[:10]
