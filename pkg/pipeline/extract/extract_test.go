package extract_test

import (
	"context"
	"encoding/json"
	"github.com/agentmem/agentmem/pkg/service"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/aws/aws-lambda-go/events"
)

var ctx = context.Background()

func setup(t *testing.T, ex extract.Extractor) (*extract.Pipeline, *service.Service) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(256), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &extract.Pipeline{Service: b.Service.Pipelines(), Extractor: ex, Log: quiet}, b.Service
}

// converse writes turns as message memories and returns them as Turns.
func converse(t *testing.T, svc *service.Service, c memory.Caller, lines ...string) []extract.Turn {
	t.Helper()
	var in []service.NewMemory
	for _, l := range lines {
		who, text, _ := strings.Cut(l, ": ")
		in = append(in, service.NewMemory{Type: memory.TypeMessage, RoomID: "chat", EntityID: who, Content: memory.Content{Text: text}})
	}
	res, err := svc.Create(ctx, c, in)
	if err != nil {
		t.Fatal(err)
	}
	var turns []extract.Turn
	for i, l := range lines {
		who, text, _ := strings.Cut(l, ": ")
		turns = append(turns, extract.Turn{ID: res[i].ID, Speaker: who, Text: text})
	}
	return turns
}

// checkSupersede runs the scripted conversation of a changed preference
// through pipeline p and checks store, search and relations.
func checkSupersede(t *testing.T, p *extract.Pipeline, svc *service.Service) {
	c := memory.Caller{OrgID: "acme"}
	first := converse(t, svc, c, "Ana: I love green tea in the morning.", "Bo: Nice, I'll remember that.")
	out, err := p.Process(ctx, c, first)
	if err != nil || len(out) != 1 || out[0].Decision != extract.New {
		t.Fatalf("first turn: %+v %v", out, err)
	}
	oldID := out[0].ID
	second := converse(t, svc, c, "Ana: Actually I prefer coffee now, tea keeps me awake.")
	out, err = p.Process(ctx, c, second)
	if err != nil || len(out) != 1 || out[0].Decision != extract.Supersedes || out[0].Target != oldID {
		t.Fatalf("the change: %+v %v", out, err)
	}
	newID := out[0].ID
	old, _ := svc.Get(ctx, c, oldID)
	if !old.Archived {
		t.Fatal("the superseded fact is not archived")
	}
	res, err := svc.Search(ctx, c, service.SearchRequest{Query: "what does Ana drink, tea or coffee", Filter: memory.Filter{Types: []memory.Type{memory.TypeFact}}, ExpandRelations: true})
	if err != nil || len(res) == 0 || res[0].Memory.ID != newID {
		t.Fatalf("search after the change: %+v %v", res, err)
	}
	var linked bool
	for _, r := range res[1:] {
		if r.Memory.ID == oldID && r.RelatedTo != nil && r.RelatedTo.Type == memory.RelSupersedes {
			linked = true
		}
		if r.Memory.ID == oldID && r.RelatedTo == nil {
			t.Fatal("the superseded fact is a search result of its own")
		}
	}
	if !linked {
		t.Fatalf("expandRelations does not bring the superseded fact: %+v", res)
	}
	rels, err := svc.Relations(ctx, c, newID)
	if err != nil {
		t.Fatal(err)
	}
	var sup, cause bool
	for _, r := range rels {
		sup = sup || (r.Type == memory.RelSupersedes && r.ToID == oldID && len(r.Provenance) == 1 && r.Provenance[0] == second[0].ID)
		cause = cause || (r.Type == memory.RelCausedBy && r.ToID == second[0].ID)
	}
	if !sup || !cause {
		t.Fatalf("relations of the new fact: %+v", rels)
	}
	// Re-processing the same turns writes nothing new.
	before, _ := svc.Count(ctx, c, memory.Filter{Types: []memory.Type{memory.TypeFact}, IncludeArchived: true})
	for _, turns := range [][]extract.Turn{first, second} {
		out, err := p.Process(ctx, c, turns)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			if o.Decision != extract.Duplicate {
				t.Fatalf("re-processing: %+v", o)
			}
		}
	}
	if after, _ := svc.Count(ctx, c, memory.Filter{Types: []memory.Type{memory.TypeFact}, IncludeArchived: true}); after != before {
		t.Fatalf("re-processing changed the fact count from %d to %d", before, after)
	}
	// Another org knows nothing of it.
	if res, _ := svc.Search(ctx, memory.Caller{OrgID: "globex"}, service.SearchRequest{Query: "Ana coffee tea"}); len(res) != 0 {
		t.Fatal("globex sees acme's facts")
	}
}

func TestLocalExtractionSupersedes(t *testing.T) {
	p, svc := setup(t, extract.Local{})
	checkSupersede(t, p, svc)
}

func TestSQSBatch(t *testing.T) {
	p, svc := setup(t, extract.Local{})
	c := memory.Caller{OrgID: "acme"}
	turns := converse(t, svc, c, "Ana: My favourite city is Porto.", "Bo: I work as a pilot for a small airline.")
	good, _ := json.Marshal(extract.Job{OrgID: "acme", MessageIDs: []string{turns[0].ID, turns[1].ID}})
	raw, err := os.ReadFile("../../../events/sqs-extract.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	tmpl := ev.Records[0]
	mk := func(id, body string) events.SQSMessage {
		m := tmpl
		m.MessageId, m.Body = id, body
		return m
	}
	// Jobs that can never succeed (not JSON, no messages, a bad field) are
	// rejected once: not reported as failures, so SQS does not redeliver
	// them into the dead-letter queue.
	ev.Records = []events.SQSMessage{mk("ok-1", string(good)), mk("poison", "{not json"), mk("no-messages", `{"orgId":"acme","messageIds":[]}`),
		mk("wrong-type", `{"orgId":"acme","messageIds":"m1"}`), mk("no-org", `{"messageIds":["m1"]}`), mk("ok-again", string(good))}
	res, err := p.HandleSQS(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BatchItemFailures) != 0 {
		t.Fatalf("batch item failures %v, want none: invalid jobs are rejected, not retried", res.BatchItemFailures)
	}
	// Two facts, once, though the job was delivered twice.
	if n, _ := svc.Count(ctx, c, memory.Filter{Types: []memory.Type{memory.TypeFact}}); n != 2 {
		t.Fatalf("%d facts after a job delivered twice, want 2", n)
	}
	// A job naming another org's message ids extracts nothing from them.
	other := converse(t, svc, memory.Caller{OrgID: "globex"}, "Cy: I love sailing on weekends.")
	evil, _ := json.Marshal(extract.Job{OrgID: "acme", MessageIDs: []string{other[0].ID}})
	if res, _ := p.HandleSQS(ctx, events.SQSEvent{Records: []events.SQSMessage{mk("cross", string(evil))}}); len(res.BatchItemFailures) != 0 {
		t.Fatalf("cross-org job: %+v", res)
	}
	if n, _ := svc.Count(ctx, c, memory.Filter{Types: []memory.Type{memory.TypeFact}}); n != 2 {
		t.Fatal("a job in org acme extracted globex's message")
	}
}

// unavailable is an extractor whose model cannot be reached.
type unavailable struct{}

func (unavailable) Name() string { return "unavailable" }
func (unavailable) Extract(context.Context, []extract.Turn) ([]extract.Fact, error) {
	return nil, memory.Errorf(memory.EUNAVAILABLE, "the model is throttling")
}

// TestSQSTransientFailure: a job that failed for a reason that may pass
// (the model is unavailable) is reported for redelivery; an invalid job in
// the same batch is not.
func TestSQSTransientFailure(t *testing.T) {
	p, svc := setup(t, unavailable{})
	c := memory.Caller{OrgID: "acme"}
	turns := converse(t, svc, c, "Ana: My favourite city is Porto.")
	job, _ := json.Marshal(extract.Job{OrgID: "acme", MessageIDs: []string{turns[0].ID}})
	res, err := p.HandleSQS(ctx, events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "throttled", Body: string(job)}, {MessageId: "invalid", Body: `{"orgId":"acme","messageIds":[]}`}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BatchItemFailures) != 1 || res.BatchItemFailures[0].ItemIdentifier != "throttled" {
		t.Fatalf("batch item failures %+v, want the throttled job only", res.BatchItemFailures)
	}
	for _, tc := range []struct {
		err       error
		permanent bool
	}{
		{memory.Errorf(memory.EINVALID, "messageIds: empty"), true},
		{memory.Errorf(memory.EFORBIDDEN, "agentId"), true},
		{json.Unmarshal([]byte("{"), &struct{}{}), true},
		{memory.Errorf(memory.EUNAVAILABLE, "throttled"), false},
		{memory.Errorf(memory.ECONFLICT, "lost a race"), false},
		{context.DeadlineExceeded, false},
	} {
		if got := extract.Permanent(tc.err); got != tc.permanent {
			t.Errorf("Permanent(%v) = %v, want %v", tc.err, got, tc.permanent)
		}
	}
}

// TestFactsAreComparedAsStoredTexts: a new fact is compared with the known
// ones as a stored text, never embedded as a question, so the duplicate and
// related thresholds hold for embedders that embed questions differently
// (bge-small's instruction).
func TestFactsAreComparedAsStoredTexts(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(256), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	emb := &memorytest.RecordingEmbedder{Embedder: b.Embedder}
	svc := service.NewService(b.Store, b.Index, emb)
	p := &extract.Pipeline{Service: svc.Pipelines(), Extractor: extract.Local{}, Log: quiet}
	c := memory.Caller{OrgID: "acme"}
	for _, turns := range [][]string{{"Ana: I love green tea in the morning."}, {"Ana: Actually I prefer coffee now, tea keeps me awake."}} {
		in := converse(t, svc, c, turns...)
		emb.Purposes()
		out, err := p.Process(ctx, c, in)
		if err != nil || len(out) != 1 {
			t.Fatalf("%v: %+v %v", turns, out, err)
		}
		purposes := emb.Purposes()
		if len(purposes) == 0 {
			t.Fatal("nothing was embedded")
		}
		for _, got := range purposes {
			if got != memory.PurposeDocument {
				t.Fatalf("%v: a fact was embedded as a question (%v)", turns, purposes)
			}
		}
	}
}
