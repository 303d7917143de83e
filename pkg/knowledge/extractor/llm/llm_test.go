package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/llm"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
)

const modelID = "anthropic.claude-3-5-haiku-20241022-v1:0"

// converse is the test's model behind the one local Bedrock stand-in
// (testenv.StartBedrock, which checks the signature, the method, the
// route and the JSON body, and counts the requests). It checks what the
// extractor must send (the model, one user message, a system prompt
// naming the tool, a token limit, temperature 0, and the knowledge schema
// as the one tool, forced), then lets the test's model answer.
type converse struct {
	testenv.Bedrock
	mu    sync.Mutex
	users []string
	// model answers one request: a tool input, or an HTTP failure.
	model func(user string) (input any, status int, errType string)
}

func (c *converse) converse(w http.ResponseWriter, model string, req testenv.ConverseRequest) {
	if model != modelID {
		testenv.BedrockFail(w, 404, "ResourceNotFoundException", "no model "+model)
		return
	}
	user, ok := req.OneUserMessage()
	if !ok || !strings.Contains(req.System[0].Text, llm.ToolName) || req.InferenceConfig.MaxTokens == 0 ||
		req.InferenceConfig.Temperature == nil || *req.InferenceConfig.Temperature != 0 {
		testenv.BedrockFail(w, 400, "ValidationException", "converse request shape: "+string(req.Body))
		return
	}
	// the tool is the knowledge schema, and it is forced
	var want, got map[string]any
	b, _ := json.Marshal(llm.Tool().Schema)
	json.Unmarshal(b, &want)
	name, schema := req.ForcedTool()
	if name != llm.ToolName || req.ToolConfig.Tools[0].ToolSpec.Description == "" ||
		json.Unmarshal(schema, &got) != nil || !reflect.DeepEqual(got, want) {
		testenv.BedrockFail(w, 400, "ValidationException", "tool config: "+string(req.Body))
		return
	}
	c.mu.Lock()
	c.users = append(c.users, user)
	c.mu.Unlock()
	input, status, errType := c.model(user)
	switch {
	case status != 0:
		testenv.BedrockFail(w, status, errType, "model says no")
	case input == nil:
		testenv.ConverseText(w, "Here is what I found in the messages.")
	default:
		testenv.ConverseToolUse(w, llm.ToolName, input)
	}
}

func start(t *testing.T, model func(string) (any, int, string), attempts int) (*converse, *bedrock.Converser) {
	t.Helper()
	c := &converse{model: model}
	c.Converse = c.converse
	testenv.StartBedrock(t, &c.Bedrock)
	client, err := bedrock.NewClient(context.Background(), bedrock.ClientOptions{Endpoint: c.URL, Region: "us-east-1",
		AccessKey: "local", SecretKey: "local", MaxAttempts: attempts, MaxBackoff: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cv, err := bedrock.NewConverser(client, bedrock.ConverserOptions{Model: modelID, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c, cv
}

// promptMessage is one numbered message as the prompt shows it.
type promptMessage struct {
	id      int
	speaker string
	text    string
}

var headRe = regexp.MustCompile(`(?m)^\[(\d+)\]( speaker: ([^;]+);)?[^\n]*\n([^\n]*)`)

func messagesOf(user string) []promptMessage {
	var out []promptMessage
	for _, m := range headRe.FindAllStringSubmatch(user, -1) {
		id, _ := strconv.Atoi(m[1])
		out = append(out, promptMessage{id: id, speaker: m[3], text: m[4]})
	}
	return out
}

// place is the capitalized word of a test sentence after "to".
func place(text string) string {
	f := strings.Fields(strings.Trim(text, "."))
	for i, w := range f {
		if w == "to" && i+1 < len(f) {
			return strings.Trim(f[i+1], ".,!")
		}
	}
	return ""
}

// scripted answers like a model would, from the prompt: per message an
// entity for the place it names, an action of the speaker ("I") going
// there, its inverse, and a topic; entries in reverse order, with
// malformed items and entries the extractor must drop.
func scripted(user string) (any, int, string) {
	var entries []any
	msgs := messagesOf(user)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		p := place(m.text)
		entries = append(entries, map[string]any{
			"id": m.id,
			"entities": []any{
				map[string]any{"name": p, "types": []any{" City ", "place", "city"},
					"facets": []any{map[string]any{"name": "population", "value": 500000},
						map[string]any{"name": "age", "value": "3 years", "amount": 3},
						map[string]any{"name": "", "value": "x"}}},
				map[string]any{"name": "I", "type": "person", "facets": []any{map[string]any{"name": "likes", "value": "travel"}}},
				map[string]any{"name": ""}, // dropped
				42,                         // dropped
				map[string]any{"name": "none", "types": []any{"x"}}, // dropped
			},
			"actions": []any{
				map[string]any{"verbs": []any{"Travel"}, "tense": "PAST", "subject": "I", "object": "none", "indirectObject": p,
					"params":       []any{map[string]any{"name": "time", "value": "last week"}, map[string]any{"name": "", "value": "x"}, "by train"},
					"subjectFacet": map[string]any{"name": "likes", "value": "trips"}},
				map[string]any{"verbs": []any{}, "tense": "past"}, // dropped
				map[string]any{"verbs": 7},                        // dropped
			},
			"inverseActions": []any{
				map[string]any{"verbs": []any{"receive"}, "tense": "yesterday", "subject": p, "object": "you", "indirectObject": "none"},
			},
			"topics":        []any{"trip to " + p, 7, "  ", "TO " + p, "trip to " + p},
			"topicSentence": "  Sam   travelled to " + p + " by train.  ",
		})
	}
	entries = append(entries, map[string]any{"id": 99, "topics": []any{"nobody"}}, map[string]any{"id": "x"}, "junk")
	return map[string]any{"messages": entries}, 0, ""
}

func sources() []memory.KnowledgeSource {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC).UnixMilli()
	return []memory.KnowledgeSource{
		{MemoryID: "m1", Type: memory.TypeMessage, Text: "We finally went to Porto by train.", Speaker: "Sam", Listeners: []string{"Ana"}, CreatedAt: at},
		{MemoryID: "m2", Type: memory.TypeMessage, Text: "   ", Speaker: "Ana", Listeners: []string{"Sam"}},
		{MemoryID: "m3", Type: memory.TypeMessage, Text: "Next I drove to Bergen.", Speaker: "Ana", Listeners: []string{"Sam"}, CreatedAt: at},
	}
}

func TestWireRecordKnowledge(t *testing.T) {
	c, cv := start(t, scripted, 3)
	x, err := llm.New(cv, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srcs := sources()
	ks, err := x.Extract(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != len(srcs) || c.Requests.Load() != 1 {
		t.Fatalf("%d results after %d requests", len(ks), c.Requests.Load())
	}
	// the prompt numbers the messages with text, with speaker, listener and date
	msgs := messagesOf(c.users[0])
	if len(msgs) != 2 || msgs[0].speaker != "Sam" || msgs[1].speaker != "Ana" || msgs[0].text != srcs[0].Text ||
		!strings.Contains(c.users[0], "to: Ana;") || !strings.Contains(c.users[0], "8 May 2023") {
		t.Fatalf("prompt %q", c.users[0])
	}
	for _, i := range []int{0, 2} {
		k, src := ks[i], srcs[i]
		dump, _ := json.Marshal(k)
		p := place(src.Text)
		// metadata first, whatever the model said
		if len(k.Entities) < 3 || k.Entities[0].Name != src.Speaker || k.Entities[1].Name != src.Listeners[0] ||
			k.Actions[0].Verbs[0] != "say" || k.Actions[0].Subject != src.Speaker {
			t.Fatalf("%s: metadata missing: %s", src.MemoryID, dump)
		}
		// "I" merged into the speaker, with the model's facet
		if !slices.ContainsFunc(k.Entities[0].Facets, func(f memory.Facet) bool { return f.Name == "likes" && f.Value == "travel" }) {
			t.Errorf("%s: speaker facets %+v", src.MemoryID, k.Entities[0].Facets)
		}
		e := k.Entities[2]
		if e.Name != p || !slices.Equal(e.Types, []string{"city", "place"}) || len(e.Facets) != 2 {
			t.Errorf("%s: entity %+v, want %s typed city, place with 2 facets", src.MemoryID, e, p)
		}
		if q := e.Facets[0].Quantity; q == nil || q.Amount != 500000 || e.Facets[0].Value != "500000" {
			t.Errorf("numeric facet %+v", e.Facets[0])
		}
		if q := e.Facets[1].Quantity; q == nil || q.Amount != 3 || q.Units != "years" {
			t.Errorf("quantity facet %+v", e.Facets[1])
		}
		if r := k.EntityRanges[2]; src.Text[r.Start:r.End] != p {
			t.Errorf("entity range %+v", r)
		}
		if len(k.Actions) != 3 {
			t.Fatalf("%s: actions %s", src.MemoryID, dump)
		}
		a := k.Actions[1]
		if a.Subject != src.Speaker || a.Verbs[0] != "travel" || a.Tense != memory.TensePast || a.Object != "" || a.IndirectObject != p ||
			!slices.Equal(a.Params, []memory.ActionParam{{Name: "time", Value: "last week"}, {Name: "detail", Value: "by train"}}) ||
			a.SubjectFacet == nil || a.SubjectFacet.Value != "trips" {
			t.Errorf("%s: action %+v", src.MemoryID, a)
		}
		inv := k.Actions[2]
		if inv.Verbs[0] != "receive" || inv.Tense != "" || inv.Subject != p || inv.Object != src.Listeners[0] {
			t.Errorf("%s: inverse action %+v", src.MemoryID, inv)
		}
		// topics: deduplicated; a range where the text has them
		if !slices.Equal(k.Topics, []string{"trip to " + p, "TO " + p}) || k.TopicRanges[0] != (memory.TextRange{}) ||
			src.Text[k.TopicRanges[1].Start:k.TopicRanges[1].End] != "to "+p {
			t.Errorf("%s: topics %q %+v", src.MemoryID, k.Topics, k.TopicRanges)
		}
	}
	// the topic sentence: white space folded, the final stop dropped, and
	// its ref indexed by its words as sentence terms
	if want := "Sam travelled to " + place(srcs[0].Text) + " by train"; ks[0].TopicSentence != want {
		t.Errorf("topic sentence %q, want %q", ks[0].TopicSentence, want)
	}
	if refs := ks[0].Refs("m1"); refs[len(refs)-1].Kind != memory.KnowledgeSentence ||
		!slices.Contains(refs[len(refs)-1].Terms(), memory.RefTerm{Term: memory.SentenceTerm("travelled"), Role: memory.RoleTopic}) {
		t.Errorf("topic sentence ref %+v", refs[len(refs)-1])
	}
	// the message without text: metadata only
	if len(ks[1].Entities) != 2 || len(ks[1].Actions) != 1 || len(ks[1].Topics) != 0 {
		t.Errorf("empty message: %+v", ks[1])
	}
	// per message: 3 entities, 2 facets... dropped; plus 3 bad entries
	if d := x.Dropped(); d != 2*(3+2+1)+3 {
		t.Errorf("%d items dropped", d)
	}
	if u := x.Usage(); u.Calls != 1 || u.InputTokens != testenv.ConverseInputTokens || u.OutputTokens != testenv.ConverseOutputTokens {
		t.Errorf("usage %+v", u)
	}
	// the refs of the merged knowledge index the model's terms
	refs := ks[0].Refs("m1")
	found := false
	for _, r := range refs {
		for _, term := range r.Terms() {
			if term.Term == "porto" && term.Role == memory.RoleName {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no ref named porto in %v", refs)
	}
}

func TestWireBatches(t *testing.T) {
	c, cv := start(t, scripted, 3)
	x, _ := llm.New(cv, llm.Options{BatchSize: 8, Concurrency: 3})
	var srcs []memory.KnowledgeSource
	for i := 0; i < 19; i++ {
		srcs = append(srcs, memory.KnowledgeSource{MemoryID: fmt.Sprint(i), Text: fmt.Sprintf("Then we went to Town%d.", i), Speaker: "Sam"})
	}
	ks, err := x.Extract(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Requests.Load(); n != 3 {
		t.Errorf("%d requests for 19 messages in batches of 8", n)
	}
	for i, k := range ks {
		want := fmt.Sprintf("Town%d", i)
		if len(k.Entities) < 2 || k.Entities[1].Name != want {
			t.Errorf("message %d: entities %+v, want %s", i, k.Entities, want)
		}
	}
	// a batch is also bounded by its text
	c2, cv2 := start(t, scripted, 3)
	x2, _ := llm.New(cv2, llm.Options{BatchSize: 100, MaxBatchBytes: 60})
	if _, err := x2.Extract(context.Background(), srcs[:6]); err != nil {
		t.Fatal(err)
	}
	if n := c2.Requests.Load(); n != 3 {
		t.Errorf("%d requests for 6 messages of ~22 bytes within 60 bytes a call", n)
	}
	// a batch holds the memories of one set of readers: Bob's own turn is
	// never read beside the room's
	c3, cv3 := start(t, scripted, 3)
	x3, _ := llm.New(cv3, llm.Options{BatchSize: 100})
	mixed := slices.Clone(srcs[:6])
	for i := range mixed {
		mixed[i].Readers = "|room:r1"
	}
	mixed[2].Readers, mixed[3].Readers = "|user:bob", "|user:bob"
	ks, err = x3.Extract(context.Background(), mixed)
	if err != nil {
		t.Fatal(err)
	}
	if n := c3.Requests.Load(); n != 3 {
		t.Errorf("%d requests for the room's, Bob's and the room's memories in a row, want 3", n)
	}
	for i, k := range ks {
		if want := fmt.Sprintf("Town%d", i); len(k.Entities) < 2 || k.Entities[1].Name != want {
			t.Errorf("message %d: entities %+v, want %s", i, k.Entities, want)
		}
	}
}

func TestWireFailures(t *testing.T) {
	answer := func(v any) func(string) (any, int, string) {
		return func(string) (any, int, string) { return v, 0, "" }
	}
	tests := []struct {
		name     string
		model    func(string) (any, int, string)
		code     string
		contains string
		is       error
	}{
		{"answer without the tool", answer(nil), memory.EUNAVAILABLE, "", bedrock.ErrNoToolUse},
		{"throttled throughout", func(string) (any, int, string) { return nil, 429, "ThrottlingException" }, memory.EUNAVAILABLE, "ThrottlingException", nil},
		{"service unavailable", func(string) (any, int, string) { return nil, 503, "ServiceUnavailableException" }, memory.EUNAVAILABLE, "ServiceUnavailable", nil},
		{"messages not an array", answer(map[string]any{"messages": "none today"}), memory.EINTERNAL, "not an array", nil},
		{"no messages", answer(map[string]any{"entities": []any{}}), memory.EINTERNAL, "no messages", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, cv := start(t, tc.model, 2)
			x, _ := llm.New(cv, llm.Options{})
			ks, err := x.Extract(context.Background(), sources())
			if err == nil || ks != nil {
				t.Fatalf("no error: %+v", ks)
			}
			if memory.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.contains) || tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v (code %s), want %s", err, memory.ErrorCode(err), tc.code)
			}
		})
	}
}

func TestWireMalformedEntries(t *testing.T) {
	// every entry is wrong: the messages keep their metadata knowledge only.
	_, cv := start(t, func(string) (any, int, string) {
		return map[string]any{"messages": []any{
			map[string]any{"id": 0, "topics": []any{"zero"}},
			map[string]any{"id": 3, "topics": []any{"beyond the batch"}},
			map[string]any{"id": []any{1}, "topics": []any{"array id"}},
			map[string]any{"id": 1, "entities": "Porto", "topics": []any{"x"}},
			map[string]any{"id": "2", "entities": []any{map[string]any{"name": strings.Repeat("n", 300)}},
				"actions": []any{map[string]any{"verbs": []any{"go"}, "params": "x"}}},
			nil,
		}}, 0, ""
	}, 2)
	x, _ := llm.New(cv, llm.Options{})
	ks, err := x.Extract(context.Background(), sources())
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range ks {
		if len(k.Entities) != 2 || len(k.Actions) != 1 || len(k.Topics) != 0 {
			t.Errorf("message %d: %+v", i, k)
		}
	}
	if x.Dropped() < 6 {
		t.Errorf("%d dropped", x.Dropped())
	}
}

func TestContextCanceled(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	_, cv := start(t, func(string) (any, int, string) { <-block; return nil, 503, "ServiceUnavailableException" }, 1)
	x, _ := llm.New(cv, llm.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := x.Extract(ctx, sources()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v", err)
	}
}

func TestNew(t *testing.T) {
	if _, err := llm.New(nil, llm.Options{}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("nil model: %v", err)
	}
	_, cv := start(t, scripted, 1)
	x, _ := llm.New(cv, llm.Options{})
	var _ memory.KnowledgeExtractor = x
	if x.Name() == "" {
		t.Error("no name")
	}
	// nothing to ask: no call
	ks, err := x.Extract(context.Background(), []memory.KnowledgeSource{{Speaker: "Sam"}})
	if err != nil || len(ks) != 1 || len(ks[0].Entities) != 1 || x.Usage().Calls != 0 {
		t.Errorf("%+v %v %+v", ks, err, x.Usage())
	}
}

// TestRelatedTermsOffered: the related terms the model offers for an
// entity are kept as facets named memory.FacetRelatedTerm, cleaned,
// without repeats (in any case), the name itself or non-strings, at most
// llm.MaxRelatedTerms.
func TestRelatedTermsOffered(t *testing.T) {
	many := []any{"AI", "ai", 7, "none", "artificial intelligence", "  machine   intelligence ", ""}
	for i := range llm.MaxRelatedTerms + 2 {
		many = append(many, fmt.Sprintf("term %d", i))
	}
	_, cv := start(t, func(user string) (any, int, string) {
		return map[string]any{"messages": []any{map[string]any{"id": 1, "actions": []any{}, "topics": []any{},
			"entities": []any{map[string]any{"name": "artificial intelligence", "types": []any{"field"}, "relatedTerms": many}}}}}, 0, ""
	}, 1)
	x, err := llm.New(cv, llm.Options{OmitSayActions: true})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := x.Extract(context.Background(), []memory.KnowledgeSource{{MemoryID: "m1", Type: memory.TypeMessage, Text: "I study artificial intelligence."}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ks[0].Entities {
		if e.Name != "artificial intelligence" {
			continue
		}
		for _, f := range e.Facets {
			if f.Name == memory.FacetRelatedTerm {
				got = append(got, f.Value)
			}
		}
	}
	want := []string{"AI", "machine intelligence"} // "ai" repeats "AI"
	for i := range llm.MaxRelatedTerms - len(want) {
		want = append(want, fmt.Sprintf("term %d", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("related terms %q, want %q", got, want)
	}
}
