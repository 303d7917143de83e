package locomo

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// write stores doc as name in a fresh directory and returns its path.
func write(t *testing.T, name, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		check     func(t *testing.T, c *Conversation)
	}{
		{
			name: "sessions sorted by number, name from the file",
			doc: `{"speaker_a":"Ana","speaker_b":"Bo",
				"session_10":[{"speaker":"Bo","dia_id":"D10:1","text":"ten"}],
				"session_2":[{"speaker":"Ana","dia_id":"D2:1","text":"two","blip_caption":"a cat"},
				             {"speaker":"Bo","dia_id":"D2:2","text":"two bis"}],
				"session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"one"}],
				"qa":[]}`,
			check: func(t *testing.T, c *Conversation) {
				if c.Name != "conv-x" || c.SpeakerA != "Ana" || c.SpeakerB != "Bo" {
					t.Errorf("name %q, speakers %q %q", c.Name, c.SpeakerA, c.SpeakerB)
				}
				var ns []int
				for _, s := range c.Sessions {
					ns = append(ns, s.N)
				}
				if !reflect.DeepEqual(ns, []int{1, 2, 10}) {
					t.Fatalf("sessions %v, want [1 2 10]", ns)
				}
				want := []Turn{{Speaker: "Ana", DiaID: "D2:1", Text: "two", Caption: "a cat"}, {Speaker: "Bo", DiaID: "D2:2", Text: "two bis"}}
				if !reflect.DeepEqual(c.Sessions[1].Turns, want) {
					t.Errorf("session 2 turns %+v, want %+v", c.Sessions[1].Turns, want)
				}
				if tr, ok := c.Turn("D10:1"); !ok || tr.Speaker != "Bo" || tr.Text != "ten" {
					t.Errorf("Turn(D10:1) = %+v, %v", tr, ok)
				}
				if _, ok := c.Turn("D9:9"); ok {
					t.Error("Turn(D9:9) found")
				}
			},
		},
		{
			name: "a session key that is not a list of turns is skipped",
			doc: `{"session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"one"}],
				"session_2":"not turns", "session_3":{"speaker":"Ana"}, "session_4":null,
				"session_2_date_time":"not a date either",
				"session_1_summary":"ignored", "sessions":[1]}`,
			check: func(t *testing.T, c *Conversation) {
				if len(c.Sessions) != 1 || c.Sessions[0].N != 1 || len(c.Sessions[0].Turns) != 1 {
					t.Fatalf("sessions %+v, want session 1 alone", c.Sessions)
				}
			},
		},
		{
			name: "dates parsed, a missing one zero",
			doc: `{"session_1":[], "session_1_date_time":"1:56 pm on 8 May, 2023",
				"session_2":[], "session_2_date_time":"10:04 am on 21 December, 2022",
				"session_3":[]}`,
			check: func(t *testing.T, c *Conversation) {
				want := []time.Time{
					time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
					time.Date(2022, 12, 21, 10, 4, 0, 0, time.UTC),
					{},
				}
				if len(c.Sessions) != 3 {
					t.Fatalf("%d sessions, want 3", len(c.Sessions))
				}
				for i, s := range c.Sessions {
					if !s.Date.Equal(want[i]) {
						t.Errorf("session %d date %v, want %v", s.N, s.Date, want[i])
					}
				}
			},
		},
		{
			name: "observations by sorted speaker, ids as string or list, split",
			doc: `{"session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"one"}],
				"session_1_observation":{
					"Bo":[["Bo has a sister.",["D1:2","D1:4; D1:5"]],["Bo lives in Porto.","D1:2"]],
					"Ana":[["Ana likes tea.","D1:1; D1:3,D1:6"],["", "D1:1"],["Ana has no turn.", ""],
					       ["Ana has a list of nothing.", []],["too", "many", "items"],["Ana hikes.", "D1:7"]]}}`,
			check: func(t *testing.T, c *Conversation) {
				want := []Observation{
					{Text: "Ana likes tea.", Speaker: "Ana", Turns: []string{"D1:1", "D1:3", "D1:6"}},
					{Text: "Ana hikes.", Speaker: "Ana", Turns: []string{"D1:7"}},
					{Text: "Bo has a sister.", Speaker: "Bo", Turns: []string{"D1:2", "D1:4", "D1:5"}},
					{Text: "Bo lives in Porto.", Speaker: "Bo", Turns: []string{"D1:2"}},
				}
				if got := c.Sessions[0].Observations; !reflect.DeepEqual(got, want) {
					t.Errorf("observations\n got %+v\nwant %+v", got, want)
				}
			},
		},
		{
			name: "evidence split, categories kept",
			doc: `{"qa":[
				{"question":"Where does Bo live?","answer":"Porto","evidence":["D1:2"],"category":1},
				{"question":"What does Ana drink?","answer":2022,"evidence":["D1:3; D1:5","D2:1,D2:2 D2:3", 7],"category":4},
				{"question":"What is unknown?","evidence":[],"category":5}]}`,
			check: func(t *testing.T, c *Conversation) {
				want := []Question{
					{Question: "Where does Bo live?", Answer: "Porto", Evidence: []string{"D1:2"}, Category: 1},
					{Question: "What does Ana drink?", Answer: "2022", Evidence: []string{"D1:3", "D1:5", "D2:1", "D2:2", "D2:3"}, Category: 4},
					{Question: "What is unknown?", Category: 5},
				}
				if !reflect.DeepEqual(c.Questions, want) {
					t.Errorf("questions\n got %+v\nwant %+v", c.Questions, want)
				}
			},
		},
		{
			name: "no qa, no questions",
			doc:  `{"session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"one"}]}`,
			check: func(t *testing.T, c *Conversation) {
				if c.Questions != nil || len(c.Sessions) != 1 {
					t.Errorf("questions %+v, sessions %d", c.Questions, len(c.Sessions))
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(write(t, "conv-x.json", tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string // substrings of the error
	}{
		{"bad date", `{"session_3":[], "session_3_date_time":"yesterday at noon"}`,
			[]string{"conv-x.json", "session_3_date_time", `"yesterday at noon"`}},
		{"date not a string", `{"session_1":[], "session_1_date_time":5}`,
			[]string{"session_1_date_time", "not a string"}},
		{"malformed observations", `{"session_2":[], "session_2_observation":["D2:1"]}`,
			[]string{"session_2_observation"}},
		{"malformed qa", `{"qa":{"question":"?"}}`, []string{"conv-x.json", "qa"}},
		{"not an object", `[1, 2]`, []string{"conv-x.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(write(t, "conv-x.json", tc.doc))
			if err == nil {
				t.Fatalf("no error, loaded %+v", c)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}
