"""A LangChain retriever over agentmem's search."""

from __future__ import annotations

from typing import Any

from agentmem import Client
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict


class AgentMemRetriever(BaseRetriever):
    """Returns the memories agentmem ranks for a query as Documents (metadata: id, score, type, roomId...).

    filters are the search's (roomId, userId, type, metadata...), k the number of results.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Client
    k: int = 5
    filters: dict[str, Any] | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        res = self.client.search(query, k=self.k, filters=self.filters)
        docs = []
        for r in res["results"]:
            m = r["memory"]
            meta = {k: m[k] for k in ("id", "type", "kind", "roomId", "entityId", "userId", "createdAt") if k in m}
            docs.append(Document(page_content=m["content"]["text"], metadata={**meta, "score": r["score"]}))
        return docs
