package llm

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
)

// speakerInfo resolves "I" and "you" in one message's answer.
type speakerInfo struct {
	speaker, listener string
}

type wireMessage struct {
	ID             jsonRaw   `json:"id"`
	Entities       []jsonRaw `json:"entities"`
	Actions        []jsonRaw `json:"actions"`
	InverseActions []jsonRaw `json:"inverseActions"`
	Topics         []jsonRaw `json:"topics"`
	TopicSentence  jsonRaw   `json:"topicSentence"`
}

type wireFacet struct {
	Name   string   `json:"name"`
	Value  jsonRaw  `json:"value"`
	Amount *float64 `json:"amount"`
	Units  string   `json:"units"`
}

type wireEntity struct {
	Name   string    `json:"name"`
	Types  strList   `json:"types"`
	Type   strList   `json:"type"` // KnowPro's own spelling
	Facets []jsonRaw `json:"facets"`
	// RelatedTerms are the terms the model offers as related to the
	// entity, kept as facets named memory.FacetRelatedTerm.
	RelatedTerms []jsonRaw `json:"relatedTerms"`
}

type wireParam struct {
	Name  string  `json:"name"`
	Value jsonRaw `json:"value"`
}

type wireAction struct {
	Verbs          strList   `json:"verbs"`
	Tense          string    `json:"tense"`
	VerbTense      string    `json:"verbTense"` // KnowPro's own spelling
	Subject        string    `json:"subject"`
	Object         string    `json:"object"`
	IndirectObject string    `json:"indirectObject"`
	Params         []jsonRaw `json:"params"`
	Negated        bool      `json:"negated"`
	SubjectFacet   jsonRaw   `json:"subjectFacet"`
}

// strList accepts a string or an array of strings.
type strList []string

func (l *strList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = strList{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return err
	}
	*l = ss
	return nil
}

// errMalformed is the EINTERNAL error of an answer that is not a knowledge
// response.
func errMalformed(why string) error {
	return memory.Errorf(memory.EINTERNAL, "the knowledge model's answer is malformed: %s", why)
}

// parse reads the model's answer for a batch of len(who) messages.
// Entries with unknown numbers and malformed items are dropped and
// counted; an answer without a messages array is an error.
func parse(raw []byte, who []speakerInfo) ([]memory.Knowledge, int, error) {
	var top map[string]jsonRaw
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, 0, errMalformed("not a JSON object")
	}
	msgsRaw, ok := top["messages"]
	if !ok {
		return nil, 0, errMalformed("no messages")
	}
	var msgs []jsonRaw
	if err := json.Unmarshal(msgsRaw, &msgs); err != nil {
		return nil, 0, errMalformed("messages is not an array")
	}
	out := make([]memory.Knowledge, len(who))
	dropped := 0
	for _, mr := range msgs {
		var m wireMessage
		if err := json.Unmarshal(mr, &m); err != nil {
			dropped++
			continue
		}
		id, ok := messageID(m.ID)
		if !ok || id < 1 || id > len(who) {
			dropped++
			continue
		}
		k := &out[id-1]
		w := who[id-1]
		for _, er := range m.Entities {
			if e, ok := parseEntity(er, w); ok {
				if len(k.Entities) < MaxEntities {
					k.Entities = mergeEntity(k.Entities, e)
				}
			} else {
				dropped++
			}
		}
		for _, list := range [][]jsonRaw{m.Actions, m.InverseActions} {
			for _, ar := range list {
				if a, ok := parseAction(ar, w); ok {
					if len(k.Actions) < MaxActions && !hasAction(k.Actions, a) {
						k.Actions = append(k.Actions, a)
					}
				} else {
					dropped++
				}
			}
		}
		for _, tr := range m.Topics {
			var t string
			if json.Unmarshal(tr, &t) != nil {
				dropped++
				continue
			}
			if t = clean(t); t != "" && len(k.Topics) < MaxTopics && !hasString(k.Topics, t) {
				k.Topics = append(k.Topics, t)
			}
		}
		if len(m.TopicSentence) > 0 {
			var t string
			if json.Unmarshal(m.TopicSentence, &t) != nil {
				dropped++
			} else {
				k.TopicSentence = clean(memory.CutTopicSentence(t))
			}
		}
	}
	return out, dropped, nil
}

// messageID reads a message number given as a number or a numeric string.
func messageID(r jsonRaw) (int, bool) {
	var n json.Number
	if json.Unmarshal(r, &n) == nil {
		if v, err := n.Int64(); err == nil && v < math.MaxInt32 {
			return int(v), true
		}
		return 0, false
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		s = strings.Trim(strings.TrimSpace(s), "[]#")
		if v, err := strconv.Atoi(s); err == nil {
			return v, true
		}
	}
	return 0, false
}

// clean folds white space and rejects invalid, empty, placeholder or
// overlong strings.
func clean(s string) string {
	if !utf8.ValidString(s) {
		return ""
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > MaxNameBytes || memory.NormalizeTerm(s) == "" {
		return ""
	}
	switch strings.ToLower(s) {
	case "none", "null", "n/a", "na", "unknown", "undefined", "nil", "-":
		return ""
	}
	return s
}

// who resolves a participant pronoun to a name.
func (w speakerInfo) resolve(s string) string {
	s = clean(s)
	switch strings.ToLower(s) {
	case "i", "me", "my", "myself", "speaker", "the speaker":
		if sp := clean(w.speaker); sp != "" {
			return sp
		}
		return ""
	case "you", "your", "yourself", "listener", "the listener":
		return clean(w.listener)
	}
	return s
}

func parseFacet(r jsonRaw) (memory.Facet, bool) {
	var f wireFacet
	if len(r) == 0 || json.Unmarshal(r, &f) != nil {
		return memory.Facet{}, false
	}
	out := memory.Facet{Name: clean(f.Name)}
	if out.Name == "" {
		return out, false
	}
	var s string
	var n float64
	var b bool
	switch {
	case json.Unmarshal(f.Value, &s) == nil:
		out.Value = clean(s)
	case json.Unmarshal(f.Value, &n) == nil && !math.IsInf(n, 0) && !math.IsNaN(n):
		out.Value = strconv.FormatFloat(n, 'f', -1, 64)
		out.Quantity = &memory.Quantity{Amount: n}
	case json.Unmarshal(f.Value, &b) == nil:
		out.Value = strconv.FormatBool(b)
	case len(f.Value) == 0 && f.Amount != nil:
	default:
		var q struct {
			Amount *float64 `json:"amount"`
			Units  string   `json:"units"`
		}
		if json.Unmarshal(f.Value, &q) != nil || q.Amount == nil {
			return out, false
		}
		f.Amount, f.Units = q.Amount, q.Units // KnowPro's {amount, units} value
	}
	if f.Amount != nil && !math.IsInf(*f.Amount, 0) && !math.IsNaN(*f.Amount) {
		out.Quantity = &memory.Quantity{Amount: *f.Amount, Units: clean(f.Units)}
	}
	if out.Quantity != nil && out.Quantity.Units == "" && out.Value != "" {
		// "3 years" given as the value, 3 as the amount: keep the units.
		if fields := strings.Fields(out.Value); len(fields) == 2 {
			if v, err := strconv.ParseFloat(fields[0], 64); err == nil && v == out.Quantity.Amount {
				out.Quantity.Units = fields[1]
			}
		}
	}
	if out.Value == "" && out.Quantity != nil {
		out.Value = out.String()
	}
	if out.Value == "" {
		return out, false
	}
	return out, true
}

func parseEntity(r jsonRaw, w speakerInfo) (memory.Entity, bool) {
	var we wireEntity
	if json.Unmarshal(r, &we) != nil {
		return memory.Entity{}, false
	}
	e := memory.Entity{Name: w.resolve(we.Name), Types: []string{}}
	if e.Name == "" {
		return e, false
	}
	types := we.Types
	if len(types) == 0 {
		types = we.Type
	}
	for _, t := range types {
		t = strings.ToLower(clean(t))
		if t != "" && len(e.Types) < MaxTypes && !hasString(e.Types, t) {
			e.Types = append(e.Types, t)
		}
	}
	for _, fr := range we.Facets {
		if f, ok := parseFacet(fr); ok && len(e.Facets) < MaxFacets && !hasFacet(e.Facets, f) {
			e.Facets = append(e.Facets, f)
		}
	}
	n := 0
	for _, rr := range we.RelatedTerms {
		var t string
		if json.Unmarshal(rr, &t) != nil {
			continue
		}
		f := memory.Facet{Name: memory.FacetRelatedTerm, Value: clean(t)}
		if f.Value != "" && n < MaxRelatedTerms && !strings.EqualFold(f.Value, e.Name) && !hasFacet(e.Facets, f) {
			e.Facets = append(e.Facets, f)
			n++
		}
	}
	return e, true
}

func parseAction(r jsonRaw, w speakerInfo) (memory.Action, bool) {
	var wa wireAction
	if json.Unmarshal(r, &wa) != nil {
		return memory.Action{}, false
	}
	var a memory.Action
	for _, v := range wa.Verbs {
		v = strings.ToLower(clean(v))
		if v != "" && len(a.Verbs) < MaxVerbs && !hasString(a.Verbs, v) {
			a.Verbs = append(a.Verbs, v)
		}
	}
	if len(a.Verbs) == 0 {
		return a, false
	}
	tense := wa.Tense
	if tense == "" {
		tense = wa.VerbTense
	}
	switch t := strings.ToLower(strings.TrimSpace(tense)); t {
	case memory.TensePast, memory.TensePresent, memory.TenseFuture:
		a.Tense = t
	}
	a.Subject, a.Object, a.IndirectObject = w.resolve(wa.Subject), w.resolve(wa.Object), w.resolve(wa.IndirectObject)
	a.Negated = wa.Negated
	for _, pr := range wa.Params {
		var p wireParam
		if json.Unmarshal(pr, &p) != nil {
			var s string // KnowPro also allows a bare string
			if json.Unmarshal(pr, &s) != nil || clean(s) == "" {
				continue
			}
			p = wireParam{Name: "detail", Value: jsonRaw(strconv.Quote(s))}
		}
		ap := memory.ActionParam{Name: strings.ToLower(clean(p.Name))}
		var s string
		var n float64
		switch {
		case json.Unmarshal(p.Value, &s) == nil:
			ap.Value = clean(s)
		case json.Unmarshal(p.Value, &n) == nil:
			ap.Value = strconv.FormatFloat(n, 'f', -1, 64)
		}
		if ap.Name != "" && ap.Value != "" && len(a.Params) < MaxParams {
			a.Params = append(a.Params, ap)
		}
	}
	if len(wa.SubjectFacet) > 0 && string(wa.SubjectFacet) != "null" {
		if f, ok := parseFacet(wa.SubjectFacet); ok {
			a.SubjectFacet = &f
		}
	}
	return a, true
}

func hasString(ss []string, s string) bool {
	for _, x := range ss {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func hasFacet(fs []memory.Facet, f memory.Facet) bool {
	for _, x := range fs {
		if strings.EqualFold(x.Name, f.Name) && strings.EqualFold(x.String(), f.String()) {
			return true
		}
	}
	return false
}

func hasAction(as []memory.Action, a memory.Action) bool {
	for _, x := range as {
		if strings.Join(x.Verbs, " ") == strings.Join(a.Verbs, " ") && strings.EqualFold(x.Subject, a.Subject) &&
			strings.EqualFold(x.Object, a.Object) && strings.EqualFold(x.IndirectObject, a.IndirectObject) &&
			x.Tense == a.Tense && x.Negated == a.Negated {
			return true
		}
	}
	return false
}

// mergeEntity adds e to es, or merges its types and facets into the entity
// of the same name.
func mergeEntity(es []memory.Entity, e memory.Entity) []memory.Entity {
	key := memory.NormalizeTerm(e.Name)
	for i := range es {
		if memory.NormalizeTerm(es[i].Name) != key {
			continue
		}
		for _, t := range e.Types {
			if !hasString(es[i].Types, t) && len(es[i].Types) < MaxTypes {
				es[i].Types = append(es[i].Types, t)
			}
		}
		for _, f := range e.Facets {
			if !hasFacet(es[i].Facets, f) && len(es[i].Facets) < MaxFacets {
				es[i].Facets = append(es[i].Facets, f)
			}
		}
		return es
	}
	return append(es, e)
}

// merge adds the model's knowledge of a source to its metadata knowledge,
// finds where each item is in the text, and keeps the whole within
// memory.MaxRefsPerMemory.
func merge(meta, model memory.Knowledge, src memory.KnowledgeSource) memory.Knowledge {
	k := memory.Knowledge{Tags: meta.Tags}
	k.Entities = append(k.Entities, meta.Entities...)
	for _, e := range model.Entities {
		k.Entities = mergeEntity(k.Entities, e)
	}
	k.Actions = append(k.Actions, meta.Actions...)
	for _, a := range model.Actions {
		if !hasAction(k.Actions, a) {
			k.Actions = append(k.Actions, a)
		}
	}
	k.Topics, k.TopicSentence = model.Topics, model.TopicSentence
	sentence := 0
	if k.TopicSentence != "" {
		sentence = 1
	}
	for len(k.Entities)+len(k.Actions)+len(k.Topics)+len(k.Tags)+sentence > memory.MaxRefsPerMemory {
		switch {
		case len(k.Topics) > 0:
			k.Topics = k.Topics[:len(k.Topics)-1]
		case len(k.Actions) > len(meta.Actions):
			k.Actions = k.Actions[:len(k.Actions)-1]
		default:
			k.Entities = k.Entities[:len(k.Entities)-1]
		}
	}
	// ranges: where a name or topic first appears; metadata and actions
	// cover the whole memory.
	nmeta := len(meta.Entities)
	k.EntityRanges = make([]memory.TextRange, len(k.Entities))
	for i := nmeta; i < len(k.Entities); i++ {
		k.EntityRanges[i] = find(src.Text, k.Entities[i].Name)
	}
	k.ActionRanges = make([]memory.TextRange, len(k.Actions))
	k.TopicRanges = make([]memory.TextRange, len(k.Topics))
	for i, t := range k.Topics {
		k.TopicRanges[i] = find(src.Text, t)
	}
	if len(k.Entities) == 0 {
		k.Entities, k.EntityRanges = nil, nil
	}
	if len(k.Actions) == 0 {
		k.Actions, k.ActionRanges = nil, nil
	}
	if len(k.Topics) == 0 {
		k.Topics, k.TopicRanges = nil, nil
	}
	return k
}

// find returns the range of the first occurrence of s in text, ignoring
// case where that keeps byte offsets, or the zero range.
func find(text, s string) memory.TextRange {
	if s == "" {
		return memory.TextRange{}
	}
	if i := strings.Index(text, s); i >= 0 {
		return memory.TextRange{Start: i, End: i + len(s)}
	}
	lt, ls := strings.ToLower(text), strings.ToLower(s)
	if len(lt) == len(text) && len(ls) == len(s) {
		if i := strings.Index(lt, ls); i >= 0 {
			return memory.TextRange{Start: i, End: i + len(s)}
		}
	}
	return memory.TextRange{}
}
