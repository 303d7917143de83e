"""The MCP server with the official Python MCP SDK as the client
(scripts/clients-test.sh): tool results are text a model reads well, with
the structured result beside it."""

from __future__ import annotations

import json
import re

import pytest
from mcp import ClientSession

from conftest import KEY_ORG_A

try:  # the SDK 2.x
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    def _connect(url: str, key: str):
        return streamable_http_client(url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}))
except ImportError:  # the SDK 1.x
    from mcp.client.streamable_http import streamablehttp_client

    def _connect(url: str, key: str):
        return streamablehttp_client(url, headers={"Authorization": f"Bearer {key}"})


def _text(res) -> str:
    return "".join(c.text for c in res.content if getattr(c, "type", "") == "text")


def _structured(res):
    return getattr(res, "structured_content", None) or getattr(res, "structuredContent", None)


@pytest.mark.anyio
async def test_tools_answer_text_for_models(url, uniq):
    async with _connect(url + "/mcp", KEY_ORG_A) as streams:
        async with ClientSession(streams[0], streams[1]) as s:
            await s.initialize()
            room = f"mcp-sdk-{uniq}"
            text = f"Priya is vegetarian and allergic to peanuts {uniq}"
            res = await s.call_tool("remember", {"content": text, "roomId": room})
            assert not res.isError if hasattr(res, "isError") else not res.is_error
            mem_id = _structured(res)["id"]
            assert mem_id in _text(res)

            # get_context: the content is the context itself, not JSON.
            res = await s.call_tool("get_context", {"query": "what does Priya eat?", "roomId": room, "budgetTokens": 400})
            ctx = _structured(res)["context"]
            assert "vegetarian" in ctx
            assert _text(res) == ctx
            with pytest.raises(json.JSONDecodeError):
                json.loads(_text(res))

            # recall: numbered lines with the id, type, date and text.
            res = await s.call_tool("recall", {"query": "Priya vegetarian peanuts", "mode": "keyword", "roomId": room})
            assert _structured(res)["results"][0]["id"] == mem_id
            assert re.fullmatch(rf"1\. {re.escape(mem_id)} \[fact, \d{{4}}-\d\d-\d\d\] {re.escape(text)}", _text(res))
