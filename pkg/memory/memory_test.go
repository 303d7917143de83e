package memory

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

func validMemory() *Memory {
	return &Memory{OrgID: "o", Type: TypeFact, Kind: KindPreference, Content: Content{Text: "likes tea"},
		Importance: 0.5, Durability: DurabilityStandard, Confidence: 0.9}
}

func TestMemoryValidate(t *testing.T) {
	pos := 2
	neg := -1
	tests := []struct {
		name   string
		change func(m *Memory)
		want   string // substring of the error; "" = valid
	}{
		{"valid", func(m *Memory) {}, ""},
		{"blank text", func(m *Memory) { m.Content.Text = "  \n" }, "content.text: required"},
		{"text too long", func(m *Memory) { m.Content.Text = strings.Repeat("a", MaxTextBytes+1) }, "content.text: 32769 bytes exceeds"},
		{"invalid utf-8", func(m *Memory) { m.Content.Text = "a\xffb" }, "content.text: not valid UTF-8"},
		{"bad type", func(m *Memory) { m.Type = "note" }, `type: "note" is not one of`},
		{"bad kind", func(m *Memory) { m.Kind = "opinion" }, `kind: "opinion" is not one of`},
		{"bad durability", func(m *Memory) { m.Durability = "forever" }, `durability: "forever"`},
		{"importance above 1", func(m *Memory) { m.Importance = 1.5 }, "importance: 1.5 is outside 0..1"},
		{"negative confidence", func(m *Memory) { m.Confidence = -0.1 }, "confidence"},
		{"NaN importance", func(m *Memory) { m.Importance = math.NaN() }, "importance"},
		{"metadata not an object", func(m *Memory) { m.Metadata = json.RawMessage(`[1,2]`) }, "metadata: must be a JSON object"},
		{"metadata too large", func(m *Memory) {
			m.Metadata = json.RawMessage(`{"x":"` + strings.Repeat("a", MaxMetadataBytes) + `"}`)
		}, "metadata: 16392 bytes exceeds"},
		{"room id too long", func(m *Memory) { m.RoomID = strings.Repeat("r", MaxIDLen+1) }, "roomId: longer than 128"},
		{"control character in id", func(m *Memory) { m.EntityID = "a\nb" }, "entityId: contains a control character"},
		{"position without document", func(m *Memory) { m.Position = &pos }, "position: only valid with documentId"},
		{"negative position", func(m *Memory) { m.DocumentID = "d"; m.Position = &neg }, "position: must not be negative"},
		{"too many attachments", func(m *Memory) { m.Content.Attachments = make([]Attachment, MaxAttachments+1) }, "content.attachments: 21 exceeds"},
		{"negative createdAt", func(m *Memory) { m.CreatedAt = -5 }, "createdAt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := validMemory()
			tc.change(m)
			err := m.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), tc.want) {
				t.Fatalf("want invalid naming %q, got %v", tc.want, err)
			}
		})
	}
}

func TestWriteScope(t *testing.T) {
	org, agent := Caller{OrgID: "o"}, Caller{OrgID: "o", AgentID: "x"}
	tests := []struct {
		name          string
		c             Caller
		scope, agent  string
		want, errCode string
	}{
		{"org caller default is org scope", org, "", "", "", ""},
		{"org caller names an agent", org, "", "y", "y", ""},
		{"org caller scope agent with id", org, "agent", "y", "y", ""},
		{"org caller scope agent without id", org, "agent", "", "", EINVALID},
		{"org caller scope org with agent", org, "org", "y", "", EINVALID},
		{"agent caller default is own agent", agent, "", "", "x", ""},
		{"agent caller org scope", agent, "org", "", "", ""},
		{"agent caller names itself", agent, "agent", "x", "x", ""},
		{"agent caller names another agent", agent, "", "y", "", EFORBIDDEN},
		{"bad scope", org, "team", "", "", EINVALID},
		{"reserved agent id", org, "", OrgScope, "", EINVALID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.WriteScope(tc.scope, tc.agent)
			if ErrorCode(err) != tc.errCode {
				t.Fatalf("error %v, want code %q", err, tc.errCode)
			}
			if err == nil && got != tc.want {
				t.Fatalf("scope %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCanSee(t *testing.T) {
	tests := []struct {
		c          Caller
		org, agent string
		want       bool
	}{
		{Caller{OrgID: "a"}, "a", "", true},
		{Caller{OrgID: "a"}, "a", "x", true},
		{Caller{OrgID: "a"}, "b", "", false},
		{Caller{OrgID: "a", AgentID: "x"}, "a", "", true},
		{Caller{OrgID: "a", AgentID: "x"}, "a", "x", true},
		{Caller{OrgID: "a", AgentID: "x"}, "a", "y", false},
		{Caller{OrgID: "a", AgentID: "x"}, "b", "x", false},
		{Caller{}, "", "", false},
	}
	for _, tc := range tests {
		if got := tc.c.CanSee(tc.org, tc.agent, ""); got != tc.want {
			t.Errorf("%+v sees %s/%s = %v, want %v", tc.c, tc.org, tc.agent, got, tc.want)
		}
	}
}

func TestCallerFilterBindsOrgAndView(t *testing.T) {
	f, err := Caller{OrgID: "a", AgentID: "x"}.Bind(Filter{OrgID: "b", RoomID: "r"})
	if err != nil || f.OrgID != "a" || f.Viewer != "x" || f.RoomID != "r" {
		t.Fatalf("filter %+v, %v: the org must come from the caller", f, err)
	}
	if _, err := (Caller{OrgID: "a", AgentID: "x"}).Bind(Filter{AgentID: "y"}); ErrorCode(err) != EFORBIDDEN {
		t.Fatalf("agent x filtering on agent y: %v", err)
	}
	if _, err := (Caller{OrgID: "a"}).Bind(Filter{Start: 10, End: 5}); ErrorCode(err) != EINVALID {
		t.Fatalf("inverted range: %v", err)
	}
}

func TestNormalizeAndHash(t *testing.T) {
	tests := []struct{ a, b string }{
		{"Likes  green\ttea", "likes green tea"},
		{"  padded \n", "padded"},
		{"ＦＵＬＬwidth", "fullwidth"}, // NFKC folds compatibility forms
		{"Café", "cafe\u0301"},     // composed and decomposed accents
	}
	for _, tc := range tests {
		if ContentHash(tc.a) != ContentHash(tc.b) {
			t.Errorf("%q and %q hash differently (%q vs %q)", tc.a, tc.b, NormalizeText(tc.a), NormalizeText(tc.b))
		}
	}
	if ContentHash("green tea") == ContentHash("green teas") {
		t.Error("different texts hash alike")
	}
}

func TestDedupKey(t *testing.T) {
	base := func() *Memory {
		m := validMemory()
		m.ContentHash = ContentHash(m.Content.Text)
		return m
	}
	key := DedupKey(base())
	tests := []struct {
		name   string
		change func(m *Memory)
		same   bool
	}{
		{"room does not matter for facts", func(m *Memory) { m.RoomID = "r2" }, true},
		{"metadata does not matter", func(m *Memory) { m.Metadata = json.RawMessage(`{"a":1}`) }, true},
		{"agent scope matters", func(m *Memory) { m.AgentID = "x" }, false},
		{"type matters", func(m *Memory) { m.Type = TypeCustom }, false},
		{"content matters", func(m *Memory) { m.ContentHash = ContentHash("other") }, false},
	}
	for _, tc := range tests {
		m := base()
		tc.change(m)
		if got := DedupKey(m) == key; got != tc.same {
			t.Errorf("%s: same key = %v", tc.name, got)
		}
	}
	// Messages are events: the same words twice are two turns, unless the
	// client gives them one external id.
	a, b := base(), base()
	a.Type, b.Type = TypeMessage, TypeMessage
	a.Kind, b.Kind = "", ""
	a.ID, b.ID = "m1", "m2"
	if DedupKey(a) == DedupKey(b) {
		t.Error(`a speaker's second "Yes" in a room is dropped as a duplicate`)
	}
	a.ExternalID, b.ExternalID = "client-7", "client-7"
	if DedupKey(a) != DedupKey(b) {
		t.Error("the same message delivered twice with one external id is two memories")
	}
	b.AgentID = "x"
	if DedupKey(a) == DedupKey(b) {
		t.Error("an external id is not scoped to its agent")
	}
	c, d := base(), base()
	c.ExternalID, d.ExternalID = "k", "k"
	d.ContentHash = ContentHash("updated text")
	if DedupKey(c) != DedupKey(d) {
		t.Error("an external id does not key a memory whatever its content")
	}
	f1, f2 := base(), base()
	f1.Type, f2.Type, f1.Kind, f2.Kind = TypeFragment, TypeFragment, "", ""
	f1.DocumentID, f2.DocumentID = "d", "d"
	p1, p2 := 1, 2
	f1.Position, f2.Position = &p1, &p2
	if DedupKey(f1) == DedupKey(f2) {
		t.Error("identical text at two positions of a document is one fragment")
	}
	f2.Position = &p1
	if DedupKey(f1) != DedupKey(f2) {
		t.Error("the same fragment delivered twice is two memories")
	}
}

func TestFuse(t *testing.T) {
	hits := func(ids ...string) []Hit {
		out := make([]Hit, len(ids))
		for i, id := range ids {
			out[i] = Hit{ID: id, Score: float64(len(ids) - i)}
		}
		return out
	}
	kw := RankedList{Name: "keyword", Hits: hits("a", "b", "c"), Weight: 1}
	sem := RankedList{Name: "semantic", Hits: hits("c", "a", "d"), Weight: 1}
	kn := RankedList{Name: "knowledge", Hits: hits("d", "e"), Weight: 1}
	tests := []struct {
		name  string
		lists []RankedList
		want  []string
	}{
		{"one list keeps its order", []RankedList{kw}, []string{"a", "b", "c"}},
		{"two lists", []RankedList{kw, sem}, []string{"a", "c", "b", "d"}},
		{"three lists", []RankedList{kw, sem, kn}, []string{"a", "c", "d", "b", "e"}},
		{"a zero weight keeps ranks, not score", []RankedList{kw, {Name: "semantic", Hits: sem.Hits, Weight: 0}}, []string{"a", "b", "c", "d"}},
		{"a heavier list leads", []RankedList{kw, {Name: "semantic", Hits: sem.Hits, Weight: 3}}, []string{"c", "a", "d", "b"}},
		// Equal scores (1.0 each): the better single rank wins.
		{"tie: best single rank", []RankedList{
			{Name: "keyword", Hits: hits("x"), Weight: 61}, {Name: "semantic", Hits: hits("q", "y"), Weight: 62}}, []string{"q", "x", "y"}},
		// Equal scores and best ranks: found by more lists wins.
		{"tie: more lists", []RankedList{
			{Name: "keyword", Hits: hits("x"), Weight: 1}, {Name: "semantic", Hits: hits("y"), Weight: 0.5},
			{Name: "knowledge", Hits: hits("y"), Weight: 0.5}}, []string{"y", "x"}},
		// Equal scores and ranks: the list given first wins, whatever the ids.
		{"tie: list order, not id", []RankedList{
			{Name: "keyword", Hits: hits("zz"), Weight: 1}, {Name: "semantic", Hits: hits("aa"), Weight: 1}}, []string{"zz", "aa"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Fuse(tc.lists...)
			ids := make([]string, len(got))
			for i, f := range got {
				ids[i] = f.ID
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
				t.Fatalf("order %v, want %v", ids, tc.want)
			}
		})
	}
	got := Fuse(kw, sem)
	a := got[0]
	if want := 1.0/61 + 1.0/62; math.Abs(a.Score-want) > 1e-12 {
		t.Fatalf("score of a = %v, want %v", a.Score, want)
	}
	for _, tc := range []struct {
		k    int
		want float64
	}{{RRFK, 1.0/61 + 1.0/62}, {40, 1.0/41 + 1.0/42}, {1, 1.0/2 + 1.0/3}} {
		if got := FuseK(tc.k, kw, sem)[0]; got.ID != "a" || math.Abs(got.Score-tc.want) > 1e-12 {
			t.Fatalf("FuseK(%d): first %s scores %v, want a at %v", tc.k, got.ID, got.Score, tc.want)
		}
	}
	if k, s := a.Lists["keyword"], a.Lists["semantic"]; k.Rank != 1 || k.Score != 3 || s.Rank != 2 || s.Score != 2 {
		t.Fatalf("per-list scores of a: %+v %+v", k, s)
	}
	if d := got[3]; d.Lists["keyword"] != nil || d.Lists["semantic"].Rank != 3 {
		t.Fatalf("d: %+v", d)
	}
}

// TestFuseScores checks the score-aware fusion: at share 0 it is FuseK,
// a list's first hit always counts weight/(k+1), the scale of a list's
// scores does not matter, and a memory nearly first in both lists, which
// rank fusion puts last, comes first once the scores count.
func TestFuseScores(t *testing.T) {
	scored := func(pairs ...any) []Hit {
		var out []Hit
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, Hit{ID: pairs[i].(string), Score: pairs[i+1].(float64)})
		}
		return out
	}
	kw := RankedList{Name: "keyword", Hits: scored("a", 10.0, "b", 9.9, "c", 1.0), Weight: 1}
	sem := RankedList{Name: "semantic", Hits: scored("c", 0.9, "b", 0.89, "a", 0.1), Weight: 1}
	// The same semantic list on OpenSearch's scale, (1+cosine)/2.
	semOS := RankedList{Name: "semantic", Hits: scored("c", 0.95, "b", 0.945, "a", 0.55), Weight: 1}
	order := func(fs []Fused) string {
		ids := make([]string, len(fs))
		for i, f := range fs {
			ids[i] = f.ID
		}
		return strings.Join(ids, ",")
	}
	tests := []struct {
		name  string
		share float64
		lists []RankedList
		want  string
		// first is the first id's score, when checked.
		first float64
	}{
		{"share 0 is rank fusion (a and c tie; a is first in the first list)", 0, []RankedList{kw, sem}, "a,c,b", 1.0/41 + 1.0/43},
		{"share 1: b is nearly first in both", 1, []RankedList{kw, sem}, "b,a,c", (8.9/9 + 0.79/0.8) / 41},
		{"share 0.7 too", 0.7, []RankedList{kw, sem}, "b,a,c", 0},
		{"a list's scale does not matter", 0.7, []RankedList{kw, semOS}, "b,a,c", 0},
		{"one hit counts weight/(k+1)", 0.7, []RankedList{{Name: "keyword", Hits: scored("x", 3.0), Weight: 0.5}}, "x", 0.5 / 41},
		{"equal scores: rank alone decides", 1, []RankedList{{Name: "k", Hits: scored("x", 1.0, "y", 1.0), Weight: 1}}, "x,y", 1.0 / 41},
		{"weight 0 keeps the ranks out of the score", 0.7, []RankedList{{Name: "k", Hits: scored("x", 1.0), Weight: 0}}, "x", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FuseScores(40, tc.share, tc.lists...)
			if o := order(got); o != tc.want {
				t.Fatalf("order %s, want %s", o, tc.want)
			}
			if tc.first != 0 && math.Abs(got[0].Score-tc.first) > 1e-12 {
				t.Fatalf("first scores %v, want %v", got[0].Score, tc.first)
			}
		})
	}
	// Share 0 is FuseK to the last bit; an affine change of a list's scores
	// changes no fused score.
	k0, rrf := FuseScores(40, 0, kw, sem), FuseK(40, kw, sem)
	for i := range rrf {
		if k0[i].ID != rrf[i].ID || k0[i].Score != rrf[i].Score {
			t.Fatalf("share 0: %s %v, FuseK: %s %v", k0[i].ID, k0[i].Score, rrf[i].ID, rrf[i].Score)
		}
	}
	a, b := FuseScores(40, 0.7, kw, sem), FuseScores(40, 0.7, kw, semOS)
	for i := range a {
		if a[i].ID != b[i].ID || math.Abs(a[i].Score-b[i].Score) > 1e-12 {
			t.Fatalf("rescaled list: %s %v against %s %v", a[i].ID, a[i].Score, b[i].ID, b[i].Score)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{strings.Repeat("word ", 100), 125},
		{"日本語", 3},
		{"café", 2},
	}
	for _, tc := range tests {
		if got := EstimateTokens(tc.text); got != tc.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestCursor(t *testing.T) {
	c := &Cursor{CreatedAt: 1234, ID: "abc"}
	got, err := DecodeCursor(c.Encode())
	if err != nil || *got != *c {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, bad := range []string{"!!!", "e30", "bm90IGpzb24"} {
		if _, err := DecodeCursor(bad); ErrorCode(err) != EINVALID {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	if c, err := DecodeCursor(""); c != nil || err != nil {
		t.Fatalf("empty cursor: %v %v", c, err)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		err        error
		code, text string
	}{
		{nil, "", ""},
		{Errorf(EINVALID, "x: bad"), EINVALID, "x: bad"},
		{&DuplicateError{ExistingID: "m1"}, ECONFLICT, `duplicates memory "m1"`},
		{json.Unmarshal([]byte("{"), &struct{}{}), EINTERNAL, "internal error"},
	}
	for _, tc := range tests {
		if ErrorCode(tc.err) != tc.code || !strings.Contains(ErrorMessage(tc.err), tc.text) {
			t.Errorf("%v: code %q message %q", tc.err, ErrorCode(tc.err), ErrorMessage(tc.err))
		}
	}
}

func TestSearchText(t *testing.T) {
	tests := []struct {
		name string
		m    Memory
		want string
	}{
		{"message carries its speaker", Memory{Type: TypeMessage, EntityID: "ana", Content: Content{Text: "I moved in May"}}, "ana: I moved in May"},
		{"message without a speaker", Memory{Type: TypeMessage, Content: Content{Text: "hello"}}, "hello"},
		{"fact is its content", Memory{Type: TypeFact, EntityID: "ana", Content: Content{Text: "Ana lives in Porto"}}, "Ana lives in Porto"},
		{"attachments follow the text", Memory{Type: TypeMessage, EntityID: "bo", Content: Content{Text: "look",
			Attachments: []Attachment{{Title: "photo", Description: "a red bike"}}}}, "bo: look\nphoto\na red bike"},
	}
	for _, tc := range tests {
		if got := tc.m.SearchText(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// BenchmarkFuse fuses seven lists of 200 hits, as `full` does at k = 50,
// by rank alone and with the lists' scores.
func BenchmarkFuse(b *testing.B) {
	lists := make([]RankedList, 7)
	for l := range lists {
		hits := make([]Hit, 200)
		for i := range hits {
			hits[i] = Hit{ID: fmt.Sprintf("m%d", (i*(l+3))%600), Score: 1 / float64(i+1+l)}
		}
		lists[l] = RankedList{Name: fmt.Sprint("l", l), Hits: hits, Weight: 1}
	}
	for _, share := range []float64{0, 0.7} {
		b.Run(fmt.Sprint("share=", share), func(b *testing.B) {
			for b.Loop() {
				FuseScores(40, share, lists...)
			}
		})
	}
}
