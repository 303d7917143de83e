package extract_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// records opens a SQLite record store.
func records(t *testing.T) memory.RecordStore {
	t.Helper()
	s, err := local.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSettingsStore: settings are validated before they are stored, kept
// per org, versioned (a stale version is ECONFLICT), and served from the
// cache with their version until the TTL passes.
func TestSettingsStore(t *testing.T) {
	records := records(t)
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	s := &service.SettingsStore{Records: records, TTL: time.Minute, Now: clock}

	if set, v, err := s.ExtractionSettings(ctx, "acme"); err != nil || v != 0 || !set.IsZero() {
		t.Fatalf("before any write: %+v %d %v", set, v, err)
	}
	set, v, err := s.Write(ctx, "acme", memory.ExtractionSettings{DropCategories: []string{"health", "health"}, Language: "de-de"}, 0)
	if err != nil || v != 1 || !slices.Equal(set.DropCategories, []string{"health"}) || set.Language != "de-DE" {
		t.Fatalf("write: %+v %d %v", set, v, err)
	}
	for _, tc := range []struct {
		name      string
		set       memory.ExtractionSettings
		ifVersion int64
		code      string
	}{
		{"unknown category", memory.ExtractionSettings{DropCategories: []string{"gossip"}}, 0, memory.EINVALID},
		{"bad language", memory.ExtractionSettings{Language: "German"}, 1, memory.EINVALID},
		{"stale version", memory.ExtractionSettings{Language: "fr"}, 7, memory.ECONFLICT},
	} {
		if _, _, err := s.Write(ctx, "acme", tc.set, tc.ifVersion); memory.ErrorCode(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	if got, v, err := s.Read(ctx, "acme"); err != nil || v != 1 || got.Language != "de-DE" {
		t.Fatalf("a refused write changed the settings: %+v %d %v", got, v, err)
	}
	if got, v, err := s.ExtractionSettings(ctx, "globex"); err != nil || v != 0 || !got.IsZero() {
		t.Fatalf("another org reads acme's settings: %+v %d %v", got, v, err)
	}

	// Another process (a second store over the same records) changes them:
	// this one serves its cached copy until the TTL has passed.
	other := service.NewSettingsStore(records)
	if _, v, err := other.Write(ctx, "acme", memory.ExtractionSettings{Language: "fr"}, 1); err != nil || v != 2 {
		t.Fatalf("other write: %d %v", v, err)
	}
	if got, v, _ := s.ExtractionSettings(ctx, "acme"); v != 1 || got.Language != "de-DE" {
		t.Fatalf("within the TTL: %+v version %d, want the cached version 1", got, v)
	}
	now = now.Add(time.Minute)
	if got, v, _ := s.ExtractionSettings(ctx, "acme"); v != 2 || got.Language != "fr" {
		t.Fatalf("after the TTL: %+v version %d, want version 2", got, v)
	}
	// A write through the store itself applies at once.
	if _, v, err := s.Write(ctx, "acme", memory.ExtractionSettings{}, 2); err != nil || v != 3 {
		t.Fatalf("reset: %d %v", v, err)
	}
	if got, v, _ := s.ExtractionSettings(ctx, "acme"); v != 3 || !got.IsZero() {
		t.Fatalf("after its own write: %+v version %d", got, v)
	}
}

// fixedSettings gives every org the same settings, or an error.
type fixedSettings struct {
	set memory.ExtractionSettings
	err error
}

func (f fixedSettings) ExtractionSettings(context.Context, string) (memory.ExtractionSettings, int64, error) {
	return f.set, 4, f.err
}

// TestSettingsFilterFacts: the keep and drop lists apply to the offline
// extractor's facts by kind and category, and each kept fact records the
// settings version it was extracted under.
func TestSettingsFilterFacts(t *testing.T) {
	said := []string{"Ana: I'm allergic to penicillin.", "Ana: I love jazz.", "Ana: I live in Lisbon.", "Ana: My manager is Li."}
	all := []string{"Ana is allergic to penicillin", "Ana lives in Lisbon", "Ana loves jazz", "Ana's manager is Li"}
	tests := []struct {
		name string
		set  memory.ExtractionSettings
		want []string
	}{
		{"no rules", memory.ExtractionSettings{}, all},
		{"drop a category", memory.ExtractionSettings{DropCategories: []string{"allergy"}}, []string{"Ana lives in Lisbon", "Ana loves jazz", "Ana's manager is Li"}},
		{"keep categories", memory.ExtractionSettings{KeepCategories: []string{"home", "relationship"}}, []string{"Ana lives in Lisbon", "Ana's manager is Li"}},
		{"drop a kind", memory.ExtractionSettings{DropKinds: []memory.Kind{memory.KindPreference}}, []string{"Ana is allergic to penicillin", "Ana lives in Lisbon", "Ana's manager is Li"}},
		{"keep a kind", memory.ExtractionSettings{KeepKinds: []memory.Kind{memory.KindEntity}}, []string{"Ana's manager is Li"}},
		{"keep a kind, drop a category", memory.ExtractionSettings{KeepKinds: []memory.Kind{memory.KindFact}, DropCategories: []string{"home"}}, []string{"Ana is allergic to penicillin"}},
		// The offline extractor cannot translate: a language changes nothing.
		{"language", memory.ExtractionSettings{Language: "de", Instructions: "Nur Fakten auf Deutsch."}, all},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, svc := setup(t, extract.Local{})
			p.Settings = fixedSettings{set: tc.set}
			c := memory.Caller{OrgID: "acme"}
			out, err := p.Process(ctx, c, converse(t, svc, c, said...))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range out {
				got = append(got, o.Fact.Text)
			}
			sort.Strings(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("outcomes %q, want %q", got, tc.want)
			}
			stored := facts(t, svc, c)
			if len(stored) != len(tc.want) {
				t.Fatalf("stored %d facts, want %d", len(stored), len(tc.want))
			}
			for _, text := range tc.want {
				m := stored[text]
				if m == nil {
					t.Fatalf("%q not stored", text)
				}
				var meta struct {
					SettingsVersion int64 `json:"settingsVersion"`
				}
				json.Unmarshal(m.Metadata, &meta)
				if meta.SettingsVersion != 4 {
					t.Fatalf("%q records settings version %d, want 4", text, meta.SettingsVersion)
				}
			}
		})
	}
}

// promptRecorder is a language model that records the system prompts it
// is given and answers with one fact per conversation, of the category
// scripted.
type promptRecorder struct {
	mu      sync.Mutex
	prompts []string
	slot    string
}

func (r *promptRecorder) Call(_ context.Context, system, user string, _ memory.Tool) (json.RawMessage, memory.Usage, error) {
	r.mu.Lock()
	r.prompts = append(r.prompts, system)
	r.mu.Unlock()
	id := strings.TrimPrefix(strings.SplitN(user, "]", 2)[0], "[")
	js, err := json.Marshal(map[string]any{"facts": []map[string]any{{"text": "Ana ist gegen Penicillin allergisch", "kind": "fact",
		"confidence": 0.9, "subject": "Ana", "slot": r.slot, "value": "Penicillin", "importance": 0.9, "durability": "core", "sources": []string{id}}}})
	return js, memory.Usage{Calls: 1}, err
}

// TestSettingsSteerTheModel: the org's instructions and language reach the
// model's system prompt, after the deployment's own instructions, and its
// drop rule applies to the model's facts too.
func TestSettingsSteerTheModel(t *testing.T) {
	tests := []struct {
		name     string
		set      memory.ExtractionSettings
		slot     string
		want     []string // in the system prompt
		wantNot  []string
		wantKept bool
	}{
		{"defaults", memory.ExtractionSettings{}, "allergy:penicillin", []string{"Deployment rule."},
			[]string{"Never record", "BCP 47"}, true},
		{"instructions and language", memory.ExtractionSettings{Instructions: "Never record salaries.", Language: "de"}, "allergy:penicillin",
			[]string{"Deployment rule.\nNever record salaries.", `language with BCP 47 tag "de"`}, nil, true},
		{"drop the model's category", memory.ExtractionSettings{DropCategories: []string{"allergy"}}, "allergy:penicillin", nil,
			[]string{"BCP 47"}, false},
		{"an unknown slot is other", memory.ExtractionSettings{DropCategories: []string{memory.CategoryOther}}, "mood:grumpy", nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &promptRecorder{slot: tc.slot}
			p, svc := setup(t, extract.LLM{LLM: model, Instructions: "Deployment rule."})
			p.Settings = fixedSettings{set: tc.set}
			c := memory.Caller{OrgID: "acme"}
			out, err := p.Process(ctx, c, converse(t, svc, c, "Ana: Ich bin gegen Penicillin allergisch."))
			if err != nil {
				t.Fatal(err)
			}
			if len(model.prompts) != 1 {
				t.Fatalf("%d calls", len(model.prompts))
			}
			for _, w := range tc.want {
				if !strings.Contains(model.prompts[0], w) {
					t.Errorf("the system prompt lacks %q", w)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(model.prompts[0], w) {
					t.Errorf("the system prompt has %q", w)
				}
			}
			if kept := len(out) == 1; kept != tc.wantKept || len(facts(t, svc, c)) != len(out) {
				t.Fatalf("outcomes %+v, want kept %v", out, tc.wantKept)
			}
		})
	}
}

// TestSettingsUnreadable: a job whose org settings cannot be read fails
// (to be retried) and writes nothing, rather than extracting what the org
// may have asked to drop.
func TestSettingsUnreadable(t *testing.T) {
	p, svc := setup(t, extract.Local{})
	p.Settings = fixedSettings{err: memory.Errorf(memory.EUNAVAILABLE, "records: throttled")}
	c := memory.Caller{OrgID: "acme"}
	_, err := p.Process(ctx, c, converse(t, svc, c, "Ana: I'm allergic to penicillin."))
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || extract.Permanent(err) {
		t.Fatalf("got %v, want a retryable EUNAVAILABLE", err)
	}
	if fs := facts(t, svc, c); len(fs) != 0 {
		t.Fatalf("facts written without the settings: %v", fs)
	}
}

// corruptRecords stores records whose value cannot be read back.
type corruptRecords struct{ memory.RecordStore }

func (corruptRecords) GetRecord(context.Context, string, string, string, any) (int64, error) {
	return 0, errors.New("json: cannot unmarshal number into Go value of type memory.ExtractionSettings")
}

// TestSettingsMalformedRecordIsRetried: a settings record that cannot be
// read is the store's problem, not a permanent failure of the job.
func TestSettingsMalformedRecordIsRetried(t *testing.T) {
	s := service.NewSettingsStore(corruptRecords{records(t)})
	_, _, err := s.ExtractionSettings(ctx, "acme")
	if err == nil || extract.Permanent(err) || !strings.Contains(err.Error(), "acme") {
		t.Fatalf("got %v", err)
	}
}

// TestSettingsOrgFactsFromAgents: an org's setting overrides the
// deployment's choice of promoting facts about the org from agent-bound
// conversations, both ways.
func TestSettingsOrgFactsFromAgents(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name       string
		deployment bool
		setting    *bool
		wantAgent  string
	}{
		{"deployment off", false, nil, "a1"},
		{"deployment on", true, nil, ""},
		{"org turns it on", false, &yes, ""},
		{"org turns it off", true, &no, "a1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, svc := setup(t, extract.Local{})
			p.OrgFactsFromAgents = tc.deployment
			p.Settings = fixedSettings{set: memory.ExtractionSettings{OrgFactsFromAgents: tc.setting}}
			a1 := memory.Caller{OrgID: "acme", AgentID: "a1"}
			out, err := p.Process(ctx, a1, converse(t, svc, a1, "Ana: Our company is hiring two designers."))
			if err != nil || len(out) != 1 {
				t.Fatalf("%+v %v", out, err)
			}
			m, err := svc.Get(ctx, memory.Caller{OrgID: "acme"}, out[0].ID)
			if err != nil || m.AgentID != tc.wantAgent {
				t.Fatalf("written to scope %q (%v), want %q", m.AgentID, err, tc.wantAgent)
			}
		})
	}
}

// TestLocalQueueDrain: Drain returns once every job enqueued before it has
// run, so that the facts they wrote can be read.
func TestLocalQueueDrain(t *testing.T) {
	p, svc := setup(t, extract.Local{})
	q := extract.NewLocalQueue(p, 10)
	t.Cleanup(q.Close)
	q.Drain() // nothing queued: returns at once
	c := memory.Caller{OrgID: "acme"}
	for _, line := range []string{"Ana: I live in Lisbon.", "Bo: I'm allergic to peanuts.", "Cy: My manager is Li."} {
		turns := converse(t, svc, c, line)
		if err := q.Enqueue(ctx, extract.Job{OrgID: "acme", MessageIDs: []string{turns[0].ID}}); err != nil {
			t.Fatal(err)
		}
	}
	q.Drain()
	if fs := facts(t, svc, c); len(fs) != 3 {
		t.Fatalf("after Drain: %d facts, want 3", len(fs))
	}
}
