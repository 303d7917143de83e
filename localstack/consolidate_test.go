package localstack_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/consolidation"
	"github.com/aws/aws-lambda-go/events"
	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
)

// rule is an EventBridge rule as ListRules returns it.
type rule struct {
	Name, Arn, State, ScheduleExpression, EventPattern string
}

// target is an EventBridge target.
type target struct{ Id, Arn string }

// TestEventBridgeToConsolidate: the consolidation schedule of the CDK app
// (a rate rule targeting the consolidate function) is created in
// LocalStack's EventBridge with an SQS queue as its target, the local
// invoker, since LocalStack community runs no Lambda without Docker. A
// PutEvents event matched by a pattern rule is delivered at once, and the
// schedule's own "Scheduled Event" a minute or so after the rule is made;
// each delivered event runs the consolidation handler, composed as
// functions/consolidate does, which consolidates every org in its own
// scope.
func TestEventBridgeToConsolidate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := sqsClient(t)
	// The schedule first, so that its first firing overlaps the rest.
	schedURL, schedARN := newQueue(t, q, unique("ls-schedule-"), nil)
	scheduled := unique("ls-consolidate-")
	putRule(t, map[string]any{"Name": scheduled, "ScheduleExpression": "rate(1 minute)", "State": "ENABLED"}, schedARN)
	var listed struct{ Rules []rule }
	eventBridge(t, "ListRules", map[string]any{"NamePrefix": scheduled}, &listed)
	if len(listed.Rules) != 1 || listed.Rules[0].ScheduleExpression != "rate(1 minute)" || listed.Rules[0].State != "ENABLED" {
		t.Fatalf("scheduled rule: %+v", listed.Rules)
	}
	var targets struct{ Targets []target }
	eventBridge(t, "ListTargetsByRule", map[string]any{"Rule": scheduled}, &targets)
	if len(targets.Targets) != 1 || targets.Targets[0].Arn != schedARN {
		t.Fatalf("targets of the scheduled rule: %+v, want the queue %s", targets.Targets, schedARN)
	}

	b, cfg := backend(t)
	job, err := consolidation.New(b.Service, b.Caps, cfg.Consolidation, quiet())
	must(t, "consolidation", err)
	log := quiet()
	handler := func(ctx context.Context, ev events.EventBridgeEvent) ([]consolidate.Report, error) {
		log.Info("scheduled consolidation", "event_id", ev.ID, "time", ev.Time)
		return job.RunAll(ctx)
	}

	f := func(v float64) *float64 { return &v }
	fact := func(c memory.Caller, text string, confidence float64) string {
		t.Helper()
		res, err := b.Service.Create(ctx, c, []service.NewMemory{{Type: memory.TypeFact, EntityID: "ana",
			Content: memory.Content{Text: text}, Confidence: f(confidence), Importance: f(0.6)}})
		must(t, "create", err)
		return res[0].ID
	}
	acme, globex := memory.Caller{OrgID: "acme"}, memory.Caller{OrgID: "globex"}
	weak := fact(acme, "Ana likes green tea!", 0.6)
	strong := fact(acme, "Ana likes green tea.", 0.9)
	// The same fact in another org, or in two agents' scopes, is never
	// merged with acme's org-scope one or each other.
	theirs := fact(globex, "Ana likes green tea.", 0.5)
	xs := fact(memory.Caller{OrgID: "acme", AgentID: "x"}, "Ana likes green tea.", 0.7)
	ys := fact(memory.Caller{OrgID: "acme", AgentID: "y"}, "Ana likes green tea.", 0.8)
	refresh(t, b) // the run finds near duplicates through the index

	// PutEvents, matched by a pattern rule targeting a second queue.
	nowURL, nowARN := newQueue(t, q, unique("ls-events-"), nil)
	pattern, _ := json.Marshal(map[string]any{"source": []string{"agentmem.test"}, "detail-type": []string{"Scheduled Event"}})
	putRule(t, map[string]any{"Name": unique("ls-pattern-"), "EventPattern": string(pattern), "State": "ENABLED"}, nowARN)
	var put struct {
		FailedEntryCount int
		Entries          []struct{ EventId string }
	}
	eventBridge(t, "PutEvents", map[string]any{"Entries": []map[string]any{{"Source": "agentmem.test",
		"DetailType": "Scheduled Event", "Detail": "{}"}}}, &put)
	if put.FailedEntryCount != 0 || len(put.Entries) != 1 || put.Entries[0].EventId == "" {
		t.Fatalf("put events: %+v", put)
	}
	ev := eventFrom(t, q, nowURL, "agentmem.test", time.Minute)
	if ev.ID != put.Entries[0].EventId {
		t.Errorf("delivered event %s, put %s", ev.ID, put.Entries[0].EventId)
	}
	reps, err := handler(ctx, ev)
	must(t, "consolidation handler", err)
	byOrg := map[string]consolidate.Report{}
	for _, r := range reps {
		byOrg[r.OrgID] = r
	}
	if len(reps) != 2 || byOrg["acme"].Scanned != 4 || byOrg["acme"].Merged != 1 || byOrg["globex"].Scanned != 1 || byOrg["globex"].Merged != 0 {
		t.Fatalf("reports: %+v", reps)
	}
	live := func(c memory.Caller) []string {
		t.Helper()
		page, err := b.Service.List(ctx, c, memory.Filter{}, 10, "")
		must(t, "list", err)
		var ids []string
		for _, m := range page.Memories {
			ids = append(ids, m.ID)
		}
		slices.Sort(ids)
		return ids
	}
	if got, want := live(acme), slices.Sorted(slices.Values([]string{strong, xs, ys})); !slices.Equal(got, want) {
		t.Errorf("acme keeps %v, want the more confident org fact %s and the agents' %s %s (and %s archived)", got, strong, xs, ys, weak)
	}
	if got := live(globex); !slices.Equal(got, []string{theirs}) {
		t.Errorf("globex keeps %v, want its own fact %s", got, theirs)
	}

	// The schedule's own event, from the rate rule.
	ev = eventFrom(t, q, schedURL, "aws.events", 3*time.Minute)
	if ev.DetailType != "Scheduled Event" || !slices.Contains(ev.Resources, listed.Rules[0].Arn) {
		t.Fatalf("scheduled event: %+v, want a Scheduled Event of %s", ev, listed.Rules[0].Arn)
	}
	refresh(t, b)
	reps, err = handler(ctx, ev)
	must(t, "consolidation handler", err)
	for _, r := range reps {
		last, err := job.Last(ctx, r.OrgID)
		must(t, "last report", err)
		if r.Merged != 0 || last.StartedAt != r.StartedAt {
			t.Errorf("second run of %s: %+v (last kept: %+v), want nothing more merged", r.OrgID, r, last)
		}
	}
	if len(reps) != 2 {
		t.Errorf("second run: %d reports, want 2", len(reps))
	}
}

// putRule creates a rule (PutRule's input) with the queue queueARN as its
// one target; both are removed at cleanup.
func putRule(t *testing.T, in map[string]any, queueARN string) {
	t.Helper()
	name := in["Name"].(string)
	eventBridge(t, "PutRule", in, nil)
	var out struct{ FailedEntryCount int }
	eventBridge(t, "PutTargets", map[string]any{"Rule": name, "Targets": []target{{Id: "queue", Arn: queueARN}}}, &out)
	if out.FailedEntryCount != 0 {
		t.Fatalf("put targets of %s: %d failed", name, out.FailedEntryCount)
	}
	t.Cleanup(func() {
		eventBridge(t, "RemoveTargets", map[string]any{"Rule": name, "Ids": []string{"queue"}}, nil)
		eventBridge(t, "DeleteRule", map[string]any{"Name": name}, nil)
	})
}

// eventFrom receives the first EventBridge event of source from the queue
// (waiting up to wait) and decodes it as the consolidate function's input.
func eventFrom(t *testing.T, q *awssqs.Client, url, source string, wait time.Duration) events.EventBridgeEvent {
	t.Helper()
	var ev events.EventBridgeEvent
	msgs := receive(t, q, url, 1, wait, func(body string) bool {
		return json.Unmarshal([]byte(body), &ev) == nil && ev.Source == source
	})
	must(t, "decode the event", json.Unmarshal([]byte(sdkaws.ToString(msgs[0].Body)), &ev))
	deleteMessages(t, q, url, msgs[0])
	return ev
}
