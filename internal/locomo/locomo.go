// Package locomo reads conversations in the LoCoMo format, the benchmark
// data of the bench-* commands.
//
// A LoCoMo file holds one conversation as a JSON object:
//
//   - speaker_a, speaker_b: the names of the two participants;
//   - session_N (N = 1, 2, ...): the turns of session N, each an object
//     {"speaker", "dia_id" (e.g. "D1:3", session 1 turn 3), "text", and
//     optionally "blip_caption", the caption of an image shared};
//   - session_N_date_time: when session N took place, e.g.
//     "1:56 pm on 8 May, 2023";
//   - session_N_observation: facts about each speaker written from the
//     session, {speaker: [[fact text, dia_id or [dia_ids]], ...]}, where one
//     dia_id string may also hold several ids ("D1:3; D1:5");
//   - qa: the questions, [{"question", "answer", "evidence": [dia_ids],
//     "category"}], an evidence string again possibly holding several ids.
//
// Other keys are ignored. Load reads one such file into a Conversation.
package locomo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DateLayout is the time.Parse layout of session_N_date_time.
const DateLayout = "3:04 pm on 2 January, 2006"

// Turn is one turn of a session.
type Turn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"` // e.g. "D1:3"
	Text    string `json:"text"`
	Caption string `json:"blip_caption"` // caption of the image shared, if any
}

// Observation is one reference fact about a speaker, with the turns it
// comes from.
type Observation struct {
	Text    string
	Speaker string
	Turns   []string // dia_ids, at least one
}

// Session is one session of a conversation.
type Session struct {
	N            int       // the N of session_N
	Date         time.Time // zero when the file gives none
	Turns        []Turn
	Observations []Observation // by speaker (sorted), then in file order
}

// Question is one question of the qa list.
type Question struct {
	Question string
	Answer   string   // the gold answer as text (a number written out); "" when absent
	Evidence []string // dia_ids of the turns that answer it
	Category int
}

// Conversation is one LoCoMo file.
type Conversation struct {
	Name               string // the file's base name without extension, e.g. "conv-26"
	SpeakerA, SpeakerB string
	Sessions           []Session // sorted by N
	Questions          []Question
}

// Turn returns the turn with dia_id id.
func (c *Conversation) Turn(id string) (Turn, bool) {
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			if t.DiaID == id {
				return t, true
			}
		}
	}
	return Turn{}, false
}

var (
	sessionKey = regexp.MustCompile(`^session_(\d+)$`)
	idSep      = regexp.MustCompile(`[;,\s]+`)
)

// splitIDs splits a string of dia_ids ("D1:3; D1:5") into the ids.
func splitIDs(s string) []string {
	var out []string
	for _, p := range idSep.Split(s, -1) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Load reads the conversation of the LoCoMo file at path. A session_N key
// whose value is not a list of turns is skipped. An unparseable date, a
// malformed observation map or a malformed qa list is an error; a missing
// date leaves Session.Date zero, a missing qa gives no questions.
// Observations with no text or no turn are dropped.
func Load(path string) (*Conversation, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := &Conversation{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	json.Unmarshal(doc["speaker_a"], &c.SpeakerA)
	json.Unmarshal(doc["speaker_b"], &c.SpeakerB)
	for k, v := range doc {
		m := sessionKey.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue // too many digits
		}
		s := Session{N: n}
		if err := json.Unmarshal(v, &s.Turns); err != nil || s.Turns == nil {
			continue // not a list of turns
		}
		if s.Date, err = parseDate(doc[k+"_date_time"]); err != nil {
			return nil, fmt.Errorf("%s: %s_date_time: %w", path, k, err)
		}
		if s.Observations, err = observations(doc[k+"_observation"]); err != nil {
			return nil, fmt.Errorf("%s: %s_observation: %w", path, k, err)
		}
		c.Sessions = append(c.Sessions, s)
	}
	sort.Slice(c.Sessions, func(i, j int) bool { return c.Sessions[i].N < c.Sessions[j].N })
	if c.Questions, err = questions(doc["qa"]); err != nil {
		return nil, fmt.Errorf("%s: qa: %w", path, err)
	}
	return c, nil
}

// parseDate parses a session date; none (absent, null or "") is the zero time.
func parseDate(raw json.RawMessage) (time.Time, error) {
	var when string
	if raw != nil {
		if err := json.Unmarshal(raw, &when); err != nil {
			return time.Time{}, fmt.Errorf("%s is not a string", raw)
		}
	}
	if when == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(DateLayout, when)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: %w", when, err)
	}
	return t, nil
}

// observations reads a session_N_observation value, speakers in sorted order.
func observations(raw json.RawMessage) ([]Observation, error) {
	if raw == nil {
		return nil, nil
	}
	var obs map[string][][]any
	if err := json.Unmarshal(raw, &obs); err != nil {
		return nil, err
	}
	speakers := make([]string, 0, len(obs))
	for sp := range obs {
		speakers = append(speakers, sp)
	}
	sort.Strings(speakers)
	var out []Observation
	for _, sp := range speakers {
		for _, o := range obs[sp] {
			if len(o) != 2 {
				continue
			}
			text, _ := o[0].(string)
			ob := Observation{Text: text, Speaker: sp}
			switch id := o[1].(type) {
			case string:
				ob.Turns = splitIDs(id)
			case []any:
				for _, x := range id {
					if s, ok := x.(string); ok {
						ob.Turns = append(ob.Turns, splitIDs(s)...)
					}
				}
			}
			if text != "" && len(ob.Turns) > 0 {
				out = append(out, ob)
			}
		}
	}
	return out, nil
}

// questions reads the qa value; evidence that is not a string is ignored.
func questions(raw json.RawMessage) ([]Question, error) {
	if raw == nil {
		return nil, nil
	}
	var qa []struct {
		Question string `json:"question"`
		Evidence []any  `json:"evidence"`
		Category int    `json:"category"`
		Answer   any    `json:"answer"`
	}
	if err := json.Unmarshal(raw, &qa); err != nil {
		return nil, err
	}
	var out []Question
	for _, q := range qa {
		var ev []string
		for _, e := range q.Evidence {
			if s, ok := e.(string); ok {
				ev = append(ev, splitIDs(s)...)
			}
		}
		var answer string
		switch a := q.Answer.(type) {
		case string:
			answer = a
		case float64:
			answer = strconv.FormatFloat(a, 'f', -1, 64)
		}
		out = append(out, Question{Question: q.Question, Answer: answer, Evidence: ev, Category: q.Category})
	}
	return out, nil
}
