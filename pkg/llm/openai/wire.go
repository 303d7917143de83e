package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The request and response shapes of POST /chat/completions: only the
// fields this client sends or reads.

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	Temperature    float64         `json:"temperature"` // 0, sent explicitly
	MaxTokens      int             `json:"max_tokens"`
	Stream         bool            `json:"stream"`
	Tools          []chatTool      `json:"tools,omitempty"`
	ToolChoice     *toolChoice     `json:"tool_choice,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatTool struct {
	Type     string       `json:"type"` // "function"
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
}

type toolChoice struct {
	Type     string `json:"type"` // "function"
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type responseFormat struct {
	Type       string     `json:"type"` // "json_schema"
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Schema      map[string]any `json:"schema"`
	Strict      bool           `json:"strict"`
}

type chatResponse struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			Refusal   *string `json:"refusal"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name string `json:"name"`
					// Arguments is a JSON string per the OpenAI API; a few
					// servers send the object itself.
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	} `json:"usage"`
}

// request builds the chat request for one call in the client's mode.
func (c *Client) request(system, user string, tool memory.Tool) chatRequest {
	r := chatRequest{Model: c.model, MaxTokens: c.maxTokens,
		Messages: []chatMessage{{Role: "system", Content: system}, {Role: "user", Content: user}}}
	switch c.mode {
	case ModeJSONSchema:
		r.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{
			Name: tool.Name, Description: tool.Description, Schema: tool.Schema, Strict: true}}
	default:
		r.Tools = []chatTool{{Type: "function", Function: toolFunction{
			Name: tool.Name, Description: tool.Description, Parameters: tool.Schema}}}
		r.ToolChoice = &toolChoice{Type: "function"}
		r.ToolChoice.Function.Name = tool.Name
	}
	return r
}

// decode reads a 2xx body: it counts the usage, then extracts the
// structured output of tool.
func (c *Client) decode(body []byte, tool memory.Tool) (json.RawMessage, memory.Usage, error) {
	var r chatResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, memory.Usage{}, c.errorf("the response is not a chat completion: %w", err)
	}
	u := memory.Usage{Calls: 1}
	if r.Usage != nil {
		u.InputTokens, u.OutputTokens = r.Usage.PromptTokens, r.Usage.CompletionTokens
	}
	c.in.Add(u.InputTokens)
	c.out.Add(u.OutputTokens)
	c.calls.Add(1)
	if len(r.Choices) == 0 {
		return nil, u, c.errorf("%w: the response has no choices", ErrNoStructuredOutput)
	}
	ch := r.Choices[0]
	msg := ch.Message
	if msg.Refusal != nil && *msg.Refusal != "" {
		return nil, u, c.errorf("%w: the model refused (%d bytes, finish_reason %q)", ErrNoStructuredOutput, len(*msg.Refusal), ch.FinishReason)
	}
	var out []byte
	switch c.mode {
	case ModeJSONSchema:
		if msg.Content == nil || strings.TrimSpace(*msg.Content) == "" {
			return nil, u, c.errorf("%w: empty content for %q (finish_reason %q)", ErrNoStructuredOutput, tool.Name, ch.FinishReason)
		}
		out = []byte(unwrapContent(*msg.Content))
	default:
		found := false
		for _, tc := range msg.ToolCalls {
			if tc.Function.Name != tool.Name {
				continue
			}
			args, err := arguments(tc.Function.Arguments)
			if err != nil {
				return nil, u, c.errorf("%w: the arguments of %q %v (finish_reason %q)", ErrNoStructuredOutput, tool.Name, err, ch.FinishReason)
			}
			out, found = args, true
			break
		}
		if !found {
			text := 0
			if msg.Content != nil {
				text = len(*msg.Content)
			}
			return nil, u, c.errorf("%w: the model did not call %q (%d tool calls, %d bytes of text, finish_reason %q)",
				ErrNoStructuredOutput, tool.Name, len(msg.ToolCalls), text, ch.FinishReason)
		}
	}
	obj, err := object(out)
	if err != nil {
		return nil, u, c.errorf("%w: the output for %q %v (finish_reason %q)", ErrNoStructuredOutput, tool.Name, err, ch.FinishReason)
	}
	return obj, u, nil
}

// arguments returns the JSON text of a tool call's arguments: the content
// of the JSON string the OpenAI API sends, or the raw value a server sent
// instead of the string.
func arguments(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, fmt.Errorf("are missing")
	}
	if raw[0] != '"' {
		return raw, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("are not a JSON string: %w", err)
	}
	return []byte(s), nil
}

// object checks that b is exactly one JSON object and returns it compacted.
func object(b []byte) (json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return nil, fmt.Errorf("is not valid JSON (%d bytes)", len(b))
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("is JSON but not an object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, fmt.Errorf("is not valid JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// unwrapContent removes what some servers put around JSON content: a
// leading <think>…</think> block of a reasoning model, and a Markdown code
// fence (```json … ``` or ``` … ```).
func unwrapContent(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "<think>") {
		if i := strings.Index(s, "</think>"); i >= 0 {
			s = strings.TrimSpace(s[i+len("</think>"):])
		}
	}
	if strings.HasPrefix(s, "```") {
		s = s[3:]
		if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.ContainsAny(s[:i], "{[") {
			s = s[i+1:] // the info string, such as "json"
		}
		s = strings.TrimSpace(s)
		s = strings.TrimSpace(strings.TrimSuffix(s, "```"))
	}
	return s
}

// apiError reads the message of an error body. Servers shape it
// differently: {"error":{"message","type"}} (OpenAI, llama-server, Ollama),
// {"message","type"} at the top (vLLM), {"error":"text"}, or plain text.
func apiError(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		var text string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			e.Message, e.Type = inner.Message, inner.Type
		case json.Unmarshal(v.Error, &text) == nil && text != "":
			e.Message = text
		default:
			e.Message, e.Type = v.Message, v.Type
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body))
	}
	if len(e.Message) > 512 {
		e.Message = strings.ToValidUTF8(e.Message[:512], "") + "…"
	}
	return e
}
