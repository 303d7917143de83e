package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/memory"
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

// decodeStrict decodes one JSON value into v, rejecting unknown fields and
// trailing data, with messages that name the offending field.
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
	return nil
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
		v, err := parseTime("start/end", s)
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

func parseTime(field, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, memory.Errorf(memory.EINVALID, "%s: must not be negative", field)
		}
		return n, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, memory.Errorf(memory.EINVALID, "%s: %q is neither milliseconds since the epoch nor an RFC 3339 time", field, s)
	}
	return t.UnixMilli(), nil
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
	Type            StringList `json:"type"`
	Kind            StringList `json:"kind"`
	RoomID          string     `json:"roomId"`
	EntityID        string     `json:"entityId"`
	SessionID       string     `json:"sessionId"`
	AgentID         string     `json:"agentId"`
	DocumentID      string     `json:"documentId"`
	Durability      string     `json:"durability"`
	Start           Millis     `json:"start"`
	End             Millis     `json:"end"`
	IncludeArchived bool       `json:"includeArchived"`
}

func (f Filters) filter() memory.Filter {
	out := memory.Filter{
		RoomID: f.RoomID, EntityID: f.EntityID, SessionID: f.SessionID, AgentID: f.AgentID,
		DocumentID: f.DocumentID, Durability: memory.Durability(f.Durability),
		Start: int64(f.Start), End: int64(f.End), IncludeArchived: f.IncludeArchived,
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
func queryFilter(r *http.Request, allowed ...string) (memory.Filter, error) {
	q := r.URL.Query()
	var f Filters
	for name, vs := range q {
		v := strings.Join(vs, ",")
		switch name {
		case "type":
			f.Type = splitList(v)
		case "kind":
			f.Kind = splitList(v)
		case "roomId":
			f.RoomID = v
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
			t, err := parseTime(name, v)
			if err != nil {
				return memory.Filter{}, err
			}
			if name == "start" {
				f.Start = Millis(t)
			} else {
				f.End = Millis(t)
			}
		case "includeArchived":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return memory.Filter{}, memory.Errorf(memory.EINVALID, "includeArchived: %q is not true or false", v)
			}
			f.IncludeArchived = b
		default:
			if !contains(allowed, name) {
				return memory.Filter{}, memory.Errorf(memory.EINVALID, "query parameter %q is not supported", name)
			}
		}
	}
	return f.filter(), nil
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
