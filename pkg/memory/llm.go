package memory

import (
	"context"
	"encoding/json"
)

// Tool is the structured output a language model must produce: a name, what
// it is for, and the JSON schema of its input. Adapters force the model to
// answer with it (a forced tool call, or JSON-schema output).
type Tool struct {
	Name        string
	Description string
	Schema      map[string]any
}

// Usage is the token accounting of one call, or of all calls so far.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	Calls        int64 `json:"calls"`
}

// LLM is a chat model that answers with structured output. Fact extraction,
// knowledge extraction, the query translator and the LLM reranker all use it.
//
// Call sends the system prompt and the user text, requires the model to
// answer with tool, and returns the tool's input as JSON with this call's
// usage. Implementations retry throttling and transient failures with
// jittered backoff inside the context's deadline. Errors: EUNAVAILABLE when
// the model cannot be reached or keeps throttling, EINTERNAL when it answers
// without the tool or with output that is not JSON.
type LLM interface {
	Call(ctx context.Context, system, user string, tool Tool) (json.RawMessage, Usage, error)
}
