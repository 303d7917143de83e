"""agentmem for LangGraph and LangChain: a BaseStore and a retriever."""

from .retriever import AgentMemRetriever
from .store import AgentMemStore, memory_key

__all__ = ["AgentMemRetriever", "AgentMemStore", "memory_key"]
