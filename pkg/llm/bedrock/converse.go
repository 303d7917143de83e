package bedrock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/pkg/memory"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithydoc "github.com/aws/smithy-go/document"
)

// Tool is the structured output a model must produce (memory.Tool).
type Tool = memory.Tool

// Usage is the token accounting of one call, or of all calls so far (memory.Usage).
type Usage = memory.Usage

// Converser calls a chat model through the Converse API and makes it answer
// by calling a tool, whose input is the structured result. It is safe for
// concurrent use.
type Converser struct {
	c         *bedrockruntime.Client
	model     string
	maxTokens int32
	timeout   time.Duration
	in, out   atomic.Int64
	calls     atomic.Int64
}

// ConverserOptions configures a Converser.
type ConverserOptions struct {
	// Model is the model or inference profile id, for example
	// "anthropic.claude-3-5-haiku-20241022-v1:0" or "amazon.nova-lite-v1:0".
	Model string
	// MaxTokens of the answer (default 2,048).
	MaxTokens int32
	// Timeout per call, retries included (default 60 s).
	Timeout time.Duration
}

// NewConverser returns a Converser over client c.
func NewConverser(c *bedrockruntime.Client, o ConverserOptions) (*Converser, error) {
	if o.Model == "" {
		return nil, errors.New("bedrock: a Converse model id is required")
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = 2048
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	return &Converser{c: c, model: o.Model, maxTokens: o.MaxTokens, timeout: o.Timeout}, nil
}

// Usage returns the tokens used by every call so far.
func (c *Converser) Usage() Usage {
	return Usage{InputTokens: c.in.Load(), OutputTokens: c.out.Load(), Calls: c.calls.Load()}
}

// ErrNoToolUse is returned when the model answers without calling the tool.
var ErrNoToolUse = errors.New("bedrock: the model did not call the tool")

// Call sends the system prompt and the user text, requires the model to
// call tool, and returns the tool input as JSON with this call's usage.
// Temperature is 0 so that extraction is repeatable.
func (c *Converser) Call(ctx context.Context, system, user string, tool Tool) (json.RawMessage, Usage, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	in := &bedrockruntime.ConverseInput{
		ModelId: aws.String(c.model),
		System:  []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: system}},
		Messages: []types.Message{{Role: types.ConversationRoleUser,
			Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: user}}}},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(c.maxTokens), Temperature: aws.Float32(0)},
		ToolConfig: &types.ToolConfiguration{
			Tools: []types.Tool{&types.ToolMemberToolSpec{Value: types.ToolSpecification{
				Name: aws.String(tool.Name), Description: aws.String(tool.Description),
				InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(tool.Schema)},
			}}},
			ToolChoice: &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(tool.Name)}},
		},
	}
	res, err := c.c.Converse(ctx, in)
	if err != nil {
		return nil, Usage{}, fmt.Errorf("bedrock: converse with %s: %w", c.model, err)
	}
	var u Usage
	if res.Usage != nil {
		u = Usage{InputTokens: int64(aws.ToInt32(res.Usage.InputTokens)), OutputTokens: int64(aws.ToInt32(res.Usage.OutputTokens)), Calls: 1}
	}
	c.in.Add(u.InputTokens)
	c.out.Add(u.OutputTokens)
	c.calls.Add(1)
	msg, ok := res.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return nil, u, fmt.Errorf("bedrock: converse with %s: no message in the output", c.model)
	}
	for _, block := range msg.Value.Content {
		tu, ok := block.(*types.ContentBlockMemberToolUse)
		if !ok || aws.ToString(tu.Value.Name) != tool.Name || tu.Value.Input == nil {
			continue
		}
		var v map[string]any
		if err := tu.Value.Input.UnmarshalSmithyDocument(&v); err != nil {
			return nil, u, fmt.Errorf("bedrock: %s tool input is not a JSON object: %w", c.model, err)
		}
		js, err := json.Marshal(jsonNumbers(v))
		if err != nil {
			return nil, u, fmt.Errorf("bedrock: %s tool input: %w", c.model, err)
		}
		return js, u, nil
	}
	return nil, u, fmt.Errorf("%w %q (stop reason %s)", ErrNoToolUse, tool.Name, res.StopReason)
}

// jsonNumbers replaces the document.Number values a smithy document decodes
// numbers into (a string type) with json.Number, so they marshal as numbers.
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case smithydoc.Number:
		return json.Number(x)
	case map[string]any:
		for k, e := range x {
			x[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = jsonNumbers(e)
		}
	}
	return v
}
