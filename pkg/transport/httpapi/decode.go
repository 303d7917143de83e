package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
)

// MaxBodyBytes is the largest request body accepted (413 beyond).
const MaxBodyBytes = 1 << 20

// readBody reads the whole body within MaxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, memory.Errorf(memory.ETOOLARGE, "body: exceeds the limit of %d bytes", MaxBodyBytes)
	} else if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "body: could not be read")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "body: a JSON object is required")
	}
	return body, nil
}

// decodeStrict decodes one JSON value into v, rejecting unknown fields,
// trailing data and strings that are not valid UTF-8, with messages that
// name the offending field.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	// Anything but the end of the body after the value is an error; More
	// alone misses a stray closing bracket ("{}}").
	if _, err := dec.Token(); err != io.EOF {
		return memory.Errorf(memory.EINVALID, "body: unexpected data after the JSON object")
	}
	return checkUTF8(body)
}

func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var me *memory.Error
	switch {
	case errors.As(err, &me):
		return me
	case errors.As(err, &syn):
		return memory.Errorf(memory.EINVALID, "body: malformed JSON at byte %d: %s", syn.Offset, syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return memory.Errorf(memory.EINVALID, "body: expected a JSON object, got %s", typ.Value)
		}
		return memory.Errorf(memory.EINVALID, "%s: expected %s, got %s", field, jsonType(typ.Type.String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return memory.Errorf(memory.EINVALID, "body: malformed JSON: unexpected end")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return memory.Errorf(memory.EINVALID, "body: unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return memory.Errorf(memory.EINVALID, "body: %s", strings.TrimPrefix(err.Error(), "json: "))
}

func jsonType(goType string) string {
	switch {
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "a number"
	case goType == "string", strings.HasSuffix(goType, ".Type"), strings.HasSuffix(goType, ".Kind"),
		strings.HasSuffix(goType, ".Durability"), strings.HasSuffix(goType, ".Mode"):
		return "a string"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return "an object"
}

// Millis is a time in a request: milliseconds since the epoch, or an RFC
// 3339 string.
type Millis int64

// UnmarshalJSON implements json.Unmarshaler.
func (t *Millis) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := contract.ParseTime("start/end", s)
		*t = Millis(v)
		return err
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return memory.Errorf(memory.EINVALID, "start/end: expected milliseconds since the epoch or an RFC 3339 string, got %s", b)
	}
	*t = Millis(n)
	return nil
}

// StringList accepts "a", "a,b" or ["a","b"].
type StringList []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *StringList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = splitList(s)
		return nil
	}
	var arr []string
	if err := json.Unmarshal(b, &arr); err != nil {
		return memory.Errorf(memory.EINVALID, "type/kind: expected a string or an array of strings, got %s", b)
	}
	*l = arr
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Filters is the JSON form of a memory.Filter in search requests.
type Filters struct {
	Type    StringList `json:"type"`
	Kind    StringList `json:"kind"`
	RoomID  string     `json:"roomId"`
	WorldID string     `json:"worldId"`
	// UserID is the end user the read serves (with roomId and worldId,
	// whom it acts for: see service.Act); it narrows nothing else.
	UserID   string `json:"userId"`
	EntityID string `json:"entityId"`
	// SessionKey selects memories whose metadata.sessionKey is this
	// value (ElizaOS's session key).
	SessionKey      string `json:"sessionKey"`
	SessionID       string `json:"sessionId"`
	AgentID         string `json:"agentId"`
	DocumentID      string `json:"documentId"`
	Durability      string `json:"durability"`
	Start           Millis `json:"start"`
	End             Millis `json:"end"`
	IncludeArchived bool   `json:"includeArchived"`
	// Metadata is {"KEY": "v"} (equality) or {"KEY": ["v1", "v2"]} (in).
	Metadata memory.MetadataFilter `json:"metadata"`
}

// acting is whom a read with these filters serves: its room, world and
// end user.
func (f Filters) acting() memory.Acting {
	return memory.Acting{UserID: f.UserID, RoomID: f.RoomID, WorldID: f.WorldID}
}

func (f Filters) filter() memory.Filter {
	out := memory.Filter{
		RoomID: f.RoomID, WorldID: f.WorldID, EntityID: f.EntityID, SessionID: f.SessionID, AgentID: f.AgentID,
		DocumentID: f.DocumentID, Durability: memory.Durability(f.Durability),
		Start: int64(f.Start), End: int64(f.End), IncludeArchived: f.IncludeArchived, Metadata: f.Metadata,
	}
	if f.SessionKey != "" {
		out.Metadata = maps.Clone(out.Metadata)
		if out.Metadata == nil {
			out.Metadata = memory.MetadataFilter{}
		}
		out.Metadata["sessionKey"] = append(out.Metadata["sessionKey"], f.SessionKey)
	}
	for _, t := range f.Type {
		out.Types = append(out.Types, memory.Type(t))
	}
	for _, k := range f.Kind {
		out.Kinds = append(out.Kinds, memory.Kind(k))
	}
	return out
}

// queryFilter parses list/count/delete query parameters; allowed names the
// parameters besides the filter ones that the endpoint takes.
func queryFilter(r *http.Request, allowed ...string) (Filters, error) {
	q := r.URL.Query()
	var f Filters
	for name, vs := range q {
		if key, ok := strings.CutPrefix(name, "metadata."); ok {
			// metadata.KEY=v; repeated for "in" (metadata.KEY=a&metadata.KEY=b).
			// A comma is part of the value.
			if f.Metadata == nil {
				f.Metadata = memory.MetadataFilter{}
			}
			f.Metadata[key] = append(f.Metadata[key], vs...)
			continue
		}
		v := strings.Join(vs, ",")
		switch name {
		case "type":
			f.Type = splitList(v)
		case "kind":
			f.Kind = splitList(v)
		case "roomId":
			f.RoomID = v
		case "worldId":
			f.WorldID = v
		case "userId":
			f.UserID = v
		case "sessionKey":
			f.SessionKey = v
		case "entityId":
			f.EntityID = v
		case "sessionId":
			f.SessionID = v
		case "agentId":
			f.AgentID = v
		case "documentId":
			f.DocumentID = v
		case "durability":
			f.Durability = v
		case "start", "end":
			t, err := contract.ParseTime(name, v)
			if err != nil {
				return Filters{}, err
			}
			if name == "start" {
				f.Start = Millis(t)
			} else {
				f.End = Millis(t)
			}
		case "includeArchived":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return Filters{}, memory.Errorf(memory.EINVALID, "includeArchived: %q is not true or false", v)
			}
			f.IncludeArchived = b
		default:
			if !contains(allowed, name) {
				return Filters{}, memory.Errorf(memory.EINVALID, "query parameter %q is not supported", name)
			}
		}
	}
	return f, nil
}

// act makes c act for the room, world and end user that a read's filters
// name (service.Act): every read handler calls it before reading.
func (s *Server) act(r *http.Request, c memory.Caller, f Filters) (memory.Caller, error) {
	return s.svc.Act(r.Context(), c, f.acting())
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

func intParam(r *http.Request, name string) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, memory.Errorf(memory.EINVALID, "%s: %q is not an integer", name, v)
	}
	return n, nil
}

// boolParam reads the query parameter name: true or false, false when
// absent; anything else is EINVALID naming it.
func boolParam(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, memory.Errorf(memory.EINVALID, "%s: %q is not true or false", name, v)
	}
	return b, nil
}

// checkUTF8 rejects a JSON body whose strings are not valid UTF-8: raw
// bytes that are not, or \u escapes of unpaired surrogates, which
// encoding/json would silently turn into U+FFFD. The error names the first
// such field by its path ("memories[1].content.text"; an object key is
// named by its object's path and "(key)"). body is one valid JSON value
// (decodeStrict has read it).
func checkUTF8(body []byte) error {
	if utf8.Valid(body) && !bytes.Contains(bytes.ToLower(body), []byte(`\ud`)) {
		return nil // the fast path: no raw invalid bytes, no surrogate escape
	}
	w := utf8Walker{b: body}
	w.value("")
	if w.bad != "" {
		return memory.Errorf(memory.EINVALID, "%s: not valid UTF-8", w.bad)
	}
	return nil
}

// utf8Walker walks one valid JSON value and records the path of the first
// string that is not valid UTF-8.
type utf8Walker struct {
	b   []byte
	i   int
	bad string
}

func (w *utf8Walker) ws() {
	for w.i < len(w.b) && (w.b[w.i] == ' ' || w.b[w.i] == '\t' || w.b[w.i] == '\n' || w.b[w.i] == '\r') {
		w.i++
	}
}

func (w *utf8Walker) value(path string) {
	w.ws()
	if w.i >= len(w.b) || w.bad != "" {
		return
	}
	switch w.b[w.i] {
	case '{':
		w.i++
		for w.bad == "" {
			w.ws()
			if w.i >= len(w.b) || w.b[w.i] == '}' {
				w.i++
				return
			}
			if w.b[w.i] == ',' {
				w.i++
				continue
			}
			key, ok := w.str()
			if !ok {
				w.bad = join(path, "(key)")
				return
			}
			w.ws()
			w.i++ // ':'
			w.value(join(path, key))
		}
	case '[':
		w.i++
		for n := 0; w.bad == ""; {
			w.ws()
			if w.i >= len(w.b) || w.b[w.i] == ']' {
				w.i++
				return
			}
			if w.b[w.i] == ',' {
				w.i++
				continue
			}
			w.value(fmt.Sprintf("%s[%d]", path, n))
			n++
		}
	case '"':
		if _, ok := w.str(); !ok {
			w.bad = path
			if path == "" {
				w.bad = "body"
			}
		}
	default: // a number, true, false or null
		for w.i < len(w.b) && !strings.ContainsRune(",]} \t\r\n", rune(w.b[w.i])) {
			w.i++
		}
	}
}

// str reads the string at w.i (its opening quote) and returns its value
// (for a path: invalid parts as U+FFFD) and whether it is valid UTF-8.
func (w *utf8Walker) str() (string, bool) {
	start := w.i
	w.i++
	for w.i < len(w.b) && w.b[w.i] != '"' {
		if w.b[w.i] == '\\' {
			w.i++
		}
		w.i++
	}
	w.i++
	raw := w.b[start:min(w.i, len(w.b))]
	if !utf8.Valid(raw) {
		return strings.ToValidUTF8(string(raw[1:len(raw)-1]), "\uFFFD"), false
	}
	// Surrogate escapes must come in pairs: a high one (\uD800-\uDBFF)
	// followed at once by a low one (\uDC00-\uDFFF).
	for j := 0; j+5 < len(raw); j++ {
		if raw[j] != '\\' {
			continue
		}
		if raw[j+1] != 'u' {
			j++ // an escaped character, perhaps a backslash
			continue
		}
		r := hexRune(raw[j+2 : j+6])
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if j+11 < len(raw) && raw[j+6] == '\\' && raw[j+7] == 'u' {
				if lo := hexRune(raw[j+8 : j+12]); lo >= 0xDC00 && lo <= 0xDFFF {
					j += 11
					continue
				}
			}
			return "", false
		case r >= 0xDC00 && r <= 0xDFFF:
			return "", false
		}
		j += 5
	}
	var s string
	json.Unmarshal(raw, &s)
	return s, true
}

func hexRune(h []byte) rune {
	n, err := strconv.ParseUint(string(h), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}

// join appends a key to a JSON path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
