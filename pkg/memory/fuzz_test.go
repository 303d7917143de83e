package memory

import (
	"encoding/base64"
	"testing"
)

// FuzzDecodeCursor fuzzes the opaque list cursor: "" is no cursor;
// anything else either decodes to a cursor with an id, whose encoding
// decodes back to the same cursor, or fails with the one EINVALID message
// that says nothing of what was wrong. A decoded cursor is one a list can
// return: a time not negative, an id that passes ValidID (no control
// characters, at most MaxIDLen). The committed corpus
// (testdata/fuzz/FuzzDecodeCursor) holds the inputs that were accepted
// before these checks.
func FuzzDecodeCursor(f *testing.F) {
	f.Add("")
	f.Add((&Cursor{CreatedAt: 1767225600000, ID: "0190a1b2c3d4e5f60718293a4b5c6d7e"}).Encode())
	f.Add((&Cursor{CreatedAt: -1, ID: "x"}).Encode())
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"t":1,"i":""}`)))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"t":"1","i":"a"}`)))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"i":"a","x":[1,2]} trailing`)))
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"t":1,"i":"a"}`)))
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := DecodeCursor(s)
		switch {
		case s == "":
			if c != nil || err != nil {
				t.Fatalf("empty cursor: %+v %v", c, err)
			}
		case err != nil:
			if ErrorCode(err) != EINVALID || ErrorMessage(err) != "cursor: not a cursor returned by this API" || c != nil {
				t.Fatalf("want the one EINVALID message, got %+v %v", c, err)
			}
		case c == nil || c.ID == "":
			t.Fatalf("%q decoded to a cursor without an id: %+v", s, c)
		case c.CreatedAt < 0 || ValidID("cursor", c.ID) != nil:
			t.Fatalf("%q decoded to a cursor no list returns: %+v", s, c)
		default:
			again, err := DecodeCursor(c.Encode())
			if err != nil || again == nil || *again != *c {
				t.Fatalf("%+v encodes to %q, which decodes to %+v, %v", *c, c.Encode(), again, err)
			}
		}
	})
}

// FuzzDecodeKnowledgeCursor fuzzes the ListKnowledge cursor: "" is no
// cursor; anything else decodes to a name a TermIndex keeps
// (IndexableTerm) whose encoding decodes to it again, or fails with the
// one EINVALID message naming the cursor.
func FuzzDecodeKnowledgeCursor(f *testing.F) {
	f.Add("")
	f.Add(EncodeKnowledgeCursor("priya raman"))
	f.Add(EncodeKnowledgeCursor("a\x00b"))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("\xff")))
	f.Add("not base64!")
	f.Fuzz(func(t *testing.T, s string) {
		name, err := DecodeKnowledgeCursor(s)
		switch {
		case s == "":
			if name != "" || err != nil {
				t.Fatalf("empty cursor: %q %v", name, err)
			}
		case err != nil:
			if ErrorCode(err) != EINVALID || ErrorMessage(err) != "cursor: not a cursor returned by this API" || name != "" {
				t.Fatalf("want the one EINVALID message, got %q %v", name, err)
			}
		case !IndexableTerm(name):
			t.Fatalf("%q decoded to %q, which no TermIndex keeps", s, name)
		default:
			// Base64 with non-zero trailing bits ("X0" and "Xw" are both
			// "_") is accepted: it names the same position.
			if again, err := DecodeKnowledgeCursor(EncodeKnowledgeCursor(name)); err != nil || again != name {
				t.Fatalf("%q decoded to %q, whose encoding decodes to %q, %v", s, name, again, err)
			}
		}
	})
}
