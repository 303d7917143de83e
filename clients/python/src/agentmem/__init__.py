"""agentmem: the Python client of the agentmem long-term memory service.

Client is synchronous, AsyncClient asynchronous; both retry 429 and 503
(honouring Retry-After), send one Idempotency-Key per storing POST across
its retries, and raise APIError subclasses that carry the API's error code.
"""

from ._client import AsyncClient, Client
from ._errors import (
    AgentMemError,
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    PreconditionFailedError,
    RateLimitError,
    ServiceUnavailableError,
    error_from_response,
)
from ._types import (
    ChatMessage,
    Content,
    CreateResult,
    Document,
    DocumentPage,
    Entity,
    EntityPage,
    Filters,
    KnowledgeListItem,
    KnowledgePrefetchResponse,
    KnowledgeSearchResponse,
    Memory,
    MemoryPage,
    MessagesResult,
    NewEntity,
    NewMemory,
    NewRoom,
    NewWorld,
    NewWorkstream,
    Participants,
    Patch,
    PromptContext,
    Room,
    RoomPage,
    SearchResponse,
    SearchResult,
    TermHint,
    Token,
    Visibility,
    Relation,
    World,
    WorldPage,
    Workstream,
    WorkstreamBlock,
    WorkstreamEntry,
    WorkstreamList,
)

__all__ = [
    "AsyncClient", "Client", "AgentMemError", "APIConnectionError", "APIError", "APITimeoutError",
    "AuthenticationError", "BadRequestError", "ConflictError", "InternalServerError", "NotFoundError",
    "PermissionDeniedError", "PreconditionFailedError", "RateLimitError", "ServiceUnavailableError",
    "error_from_response", "Content", "CreateResult", "Document", "DocumentPage", "Filters",
    "KnowledgePrefetchResponse", "KnowledgeSearchResponse", "Memory", "MemoryPage", "MessagesResult", "NewMemory", "Patch",
    "PromptContext", "SearchResponse", "SearchResult", "ChatMessage", "Entity", "EntityPage", "KnowledgeListItem",
    "NewEntity", "NewRoom", "NewWorld", "Participants", "Room", "RoomPage", "TermHint", "Token", "Visibility", "World",
    "WorldPage", "NewWorkstream", "Relation", "Workstream", "WorkstreamBlock", "WorkstreamEntry", "WorkstreamList",
]
