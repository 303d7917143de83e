package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
)

// fuzzLimits are the limits the loaders are fuzzed under: the defaults,
// and tight ones so that inputs of fuzzing size reach every limit. The
// timeout is short: a fuzz-sized input that runs into it is a bug.
var fuzzLimits = []Limits{
	{Timeout: 5 * time.Second},
	{MaxTextBytes: 2048, MaxExpansion: 3, MaxPDFPages: 4, MaxZipEntries: 8, MaxInflatedBytes: 1 << 16, Timeout: 5 * time.Second},
}

// checkLoad loads data under each of fuzzLimits and checks what holds for
// every input: no panic; an error is EINVALID or ETOOLARGE, names the file
// and, for ETOOLARGE, the limit; no fuzz-sized input takes the timeout;
// the text is valid UTF-8, not blank, and within the text budget. It
// returns the result under the default limits.
func checkLoad(t *testing.T, name string, data []byte) (string, error) {
	t.Helper()
	var text0 string
	var err0 error
	for i, l := range fuzzLimits {
		text, err := l.Load(context.Background(), name, data)
		if i == 0 {
			text0, err0 = text, err
		}
		if err != nil {
			code, msg := memory.ErrorCode(err), memory.ErrorMessage(err)
			switch {
			case code != memory.EINVALID && code != memory.ETOOLARGE:
				t.Fatalf("limits %d: error with code %s: %v", i, code, err)
			case !strings.HasPrefix(msg, name+": "):
				t.Fatalf("limits %d: the error does not name the file: %q", i, msg)
			case strings.Contains(err.Error(), "panic:"):
				t.Fatalf("limits %d: the loader panicked: %v", i, err)
			case strings.Contains(msg, "(Timeout)"):
				t.Fatalf("limits %d: a %d-byte input ran into the timeout", i, len(data))
			case code == memory.ETOOLARGE && !strings.Contains(msg, "(Max") && !strings.Contains(msg, "(MinTextAllowance)") &&
				!strings.Contains(msg, "MaxPDFPages)"):
				t.Fatalf("limits %d: ETOOLARGE that names no limit: %q", i, msg)
			}
			continue
		}
		budget, _ := l.withDefaults().textBudget(len(data))
		switch {
		case !utf8.ValidString(text):
			t.Fatalf("limits %d: the text is not UTF-8", i)
		case strings.TrimSpace(text) == "":
			t.Fatalf("limits %d: blank text without an error", i)
		case len(text) > budget:
			t.Fatalf("limits %d: %d bytes of text, over the budget of %d", i, len(text), budget)
		}
	}
	return text0, err0
}

// FuzzLoadText fuzzes the text loader (.txt, .md and .markdown share it).
func FuzzLoadText(f *testing.F) {
	for _, s := range []string{"plain notes\nsecond line", "# Title\n\nSome *text*.", "  \n", "\xff\xfe\x00", "héllo wörld"} {
		f.Add([]byte(s), uint8(0))
	}
	exts := []string{".txt", ".md", ".markdown"}
	f.Fuzz(func(t *testing.T, data []byte, ext uint8) {
		text, err := checkLoad(t, "notes"+exts[int(ext)%len(exts)], data)
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "empty") {
				t.Fatalf("blank file: %v", err)
			}
		case !utf8.Valid(data):
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "not UTF-8") {
				t.Fatalf("invalid UTF-8: %v", err)
			}
		case err != nil || text != string(data):
			t.Fatalf("UTF-8 text is not returned as it is: %q, %v", text, err)
		}
	})
}

// FuzzLoadHTML fuzzes the HTML loader: beside checkLoad, the text has
// trimmed lines and no run of blank lines, and no script survives.
func FuzzLoadHTML(f *testing.F) {
	for _, s := range []string{
		`<html><head><title>Handbook</title><style>p{color:red}</style><script>var x=1</script></head><body><h1>Leave</h1><p>Ask <b>a</b></p><ul><li>One</li></ul></body></html>`,
		`<html><script>x()</script></html>`, `<p>unclosed <div>`, `<!-- c --><![CDATA[x]]>text`, `<script>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := checkLoad(t, "page.html", data)
		if err != nil {
			return
		}
		for _, line := range strings.Split(text, "\n") {
			if line != strings.TrimSpace(line) {
				t.Fatalf("untrimmed line %q", line)
			}
		}
		if strings.Contains(text, "\n\n\n") || text != strings.TrimSpace(text) {
			t.Fatalf("blank lines not collapsed: %q", text)
		}
	})
}

// FuzzLoadJSON fuzzes the JSON loader: beside checkLoad, valid JSON never
// fails as corrupt unless it nests too deep, and its text holds every value
// that is not blank and every key above a value.
func FuzzLoadJSON(f *testing.F) {
	for _, s := range []string{
		`{"team": {"name": "Platform", "members": ["ana", "bo"]}, "budget": 12000}`, `[1, [2, [3, {"a": null}]], true]`,
		`"just a string"`, `{"a": `, `{} trailing`, `{"a.b": {"": [false]}}`, `[[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]`,
		`{"a": 1, "a": "dup"}`, `["\u00e9\n\n", "\ud800"]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := checkLoad(t, "data.json", data)
		valid := json.Valid(data)
		if err != nil {
			if valid && strings.Contains(err.Error(), "corrupt JSON") && !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("valid JSON refused: %v", err)
			}
			return
		}
		if !valid {
			return // a valid value followed by more data: only the value is read
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("valid JSON does not decode: %v", err)
		}
		// walk checks the values below v and reports whether there is one:
		// a key is in the text when a value is below it (nulls and empty
		// containers give no line).
		var walk func(v any) bool
		walk = func(v any) bool {
			switch x := v.(type) {
			case map[string]any:
				found := false
				for k, e := range x {
					if walk(e) {
						found = true
						if !strings.Contains(text, k) {
							t.Fatalf("key %q is not in the text %q", k, text)
						}
					}
				}
				return found
			case []any:
				found := false
				for _, e := range x {
					found = walk(e) || found
				}
				return found
			case string:
				if strings.TrimSpace(x) != "" && !strings.Contains(text, x) {
					t.Fatalf("value %q is not in the text %q", x, text)
				}
				return true
			case json.Number:
				if !strings.Contains(text, x.String()) {
					t.Fatalf("number %s is not in the text %q", x, text)
				}
				return true
			case bool:
				return true
			}
			return false
		}
		walk(v)
	})
}

// docxOf wraps an XML part as a DOCX's word/document.xml.
func docxOf(xml []byte) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("word/document.xml")
	w.Write(xml)
	z.Close()
	return buf.Bytes()
}

// FuzzLoadDOCX fuzzes the DOCX loader, with the input as the whole archive
// (mode even) or as its word/document.xml (mode odd).
func FuzzLoadDOCX(f *testing.F) {
	f.Add(ingesttest.MakeDOCX("Vacation requests go to HR.", "Two weeks notice is required."), uint8(0))
	f.Add(ingesttest.DOCXBomb(64<<10), uint8(0))
	f.Add([]byte("PK not really a zip"), uint8(0))
	f.Add([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>A</w:t><w:tab/><w:t>B</w:t><w:br/></w:r></w:p></w:body></w:document>`), uint8(1))
	f.Add([]byte(strings.Repeat("<a>", 100)), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		if mode%2 == 1 {
			data = docxOf(data)
		}
		checkLoad(t, "doc.docx", data)
	})
}

// FuzzLoadPDF fuzzes the PDF loader with the input as the whole file
// (mode 0), as the content stream of a one-page file (mode 1), as the
// ToUnicode character map of its font (mode 2), or as the bodies of the
// file's objects, separated by "\n%%\n", with a correct cross-reference
// table written around them (mode 3: mutations reach the page tree, fonts
// and streams instead of breaking offsets). The seeds include the
// hand-made files that hung or crashed the library before the checks.
func FuzzLoadPDF(f *testing.F) {
	f.Add(ingesttest.MakePDF("Quarterly revenue grew eight percent.", "Hiring freeze ends in March."), uint8(0))
	f.Add(cyclicPDF(), uint8(0))
	for _, h := range hazardFixtures() {
		if len(h.data) < 4096 {
			f.Add(h.data, uint8(0))
		}
	}
	f.Add([]byte("BT /F1 12 Tf 72 720 Td (Hello) Tj [(a) -200 (b)] TJ (c) ' 1 2 (d) \" ET"), uint8(1))
	f.Add([]byte("BT <41"), uint8(1))
	f.Add([]byte(strings.Join(onePage("Hello"), pdfObjSep)), uint8(3))
	cyclic := onePage("x")
	cyclic[1] = "<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>"
	f.Add([]byte(strings.Join(cyclic, pdfObjSep)), uint8(3))
	f.Add([]byte(cmapHead+"2 beginbfchar <41> <0078> <42> <00660069> endbfchar 1 beginbfrange <43> <45> [<0061> <0062>] endbfrange endcmap"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		switch mode % 4 {
		case 1:
			data = withContent("", string(data))
		case 2:
			data = withCMap(string(data))
		case 3:
			data = rawPDF(strings.Split(string(data), pdfObjSep), "")
		}
		checkLoad(t, "file.pdf", data)
	})
}

// pdfObjSep separates object bodies in FuzzLoadPDF's mode 3.
const pdfObjSep = "\n%%\n"

// FuzzSplit fuzzes the splitter: fragments are non-empty, at most Size
// characters, their offsets give their text, they start in order, overlap
// by at most Overlap, leave out only white space, and cover the text to
// its end; split with a cap gives a prefix of the same fragments.
func FuzzSplit(f *testing.F) {
	para := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 10)
	f.Add(para+"\n\n"+para+"\n\n"+strings.Repeat("héllo wörld ", 60)+"\n"+strings.Repeat("x", 700), 300, 60)
	f.Add("", 100, 20)
	f.Add("one sentence.", 0, 0)
	f.Add(strings.Repeat("a b\n", 50), 7, 6)
	f.Add("东京 "+strings.Repeat("\u00a0\u2028", 30), 5, -1)
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		// Keep each input quick: with an overlap close to the size, a text
		// without separators advances one character per fragment, so the
		// work is the text's length times the size (in the pipeline,
		// MaxFragments bounds it).
		if len(text) > 4096 {
			text = text[:4096]
		}
		size, overlap = size%300, overlap%300
		s := Splitter{Size: size, Overlap: overlap}
		chunks := s.Split(text)
		rs := []rune(text)
		effSize, effOverlap := size, overlap
		if size <= 0 {
			effSize, effOverlap = DefaultSplitter.Size, DefaultSplitter.Overlap
		}
		if effOverlap < 0 || effOverlap >= effSize {
			effOverlap = effSize / 5
		}
		covered := 0
		for i, c := range chunks {
			n := utf8.RuneCountInString(c.Text)
			switch {
			case n == 0 || n > effSize:
				t.Fatalf("chunk %d: %d characters (size %d)", i, n, effSize)
			case c.Start < 0 || c.End > len(rs) || c.Start >= c.End || string(rs[c.Start:c.End]) != c.Text:
				t.Fatalf("chunk %d: offsets [%d,%d) do not give its text", i, c.Start, c.End)
			case c.Position != i:
				t.Fatalf("chunk %d has position %d", i, c.Position)
			case strings.TrimSpace(string(rs[covered:max(covered, c.Start)])) != "":
				t.Fatalf("chunk %d starts at %d, leaving text after %d out", i, c.Start, covered)
			}
			if i > 0 {
				prev := chunks[i-1]
				if c.Start <= prev.Start || c.Start < prev.End-effOverlap {
					t.Fatalf("chunk %d starts at %d, previous [%d,%d), overlap %d", i, c.Start, prev.Start, prev.End, effOverlap)
				}
			}
			covered = max(covered, c.End)
		}
		if strings.TrimSpace(string(rs[covered:])) != "" {
			t.Fatalf("text after offset %d is in no chunk", covered)
		}
		if k := len(chunks) / 2; len(chunks) > 0 {
			capped := s.split(text, k)
			if len(capped) != k {
				t.Fatalf("split with a cap of %d gave %d chunks", k, len(capped))
			}
			for i := range capped {
				if capped[i] != chunks[i] {
					t.Fatalf("capped chunk %d differs", i)
				}
			}
		}
	})
}

// FuzzParseKey fuzzes the object-key parser: a key is accepted only in
// the {org}/{agent or _org}/{path} layout with valid ids, the caller it
// gives is valid and rebuilds the key's prefix; anything else is EINVALID
// quoting the key; "." and ".." are never an org or agent id (the
// committed corpus holds the keys that were accepted with them).
func FuzzParseKey(f *testing.F) {
	for _, k := range []string{"acme/_org/reports/q3.pdf", "acme/bot/notes.txt", "no-tenant.txt", "acme/bad agent!/x.txt",
		"acme//x", "a/b/", "a/b//", "/a/b/c", strings.Repeat("o", 65) + "/_org/x"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		c, err := ParseKey(key)
		if err != nil {
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(memory.ErrorMessage(err), fmt.Sprintf("%q", key)) {
				t.Fatalf("want EINVALID quoting the key, got %v", err)
			}
			return
		}
		parts := strings.SplitN(key, "/", 3)
		agent := parts[1]
		if agent == memory.OrgScope {
			agent = ""
		}
		for _, seg := range parts[:2] {
			if seg == "." || seg == ".." {
				t.Fatalf("key %q: %q is accepted as an org or agent id, but a path reads it as a directory", key, seg)
			}
		}
		if c.OrgID != parts[0] || c.AgentID != agent || !memory.ValidName(c.OrgID) || c.OrgID == "" || c.AgentID == memory.OrgScope ||
			(c.AgentID != "" && !memory.ValidName(c.AgentID)) || strings.Trim(parts[2], "/") == "" {
			t.Fatalf("key %q gave caller %+v", key, c)
		}
		if err := c.Valid(); err != nil {
			t.Fatalf("key %q gave an invalid caller %+v: %v", key, c, err)
		}
		seg := memory.OrgScope
		if c.AgentID != "" {
			seg = c.AgentID
		}
		if again, err := ParseKey(c.OrgID + "/" + seg + "/" + parts[2]); err != nil || again != c {
			t.Fatalf("rebuilt key: %+v %v", again, err)
		}
	})
}

// seedFiles are the committed corpus entries: the files that hung or
// exploded the loaders, kept where `go test` and `go test -fuzz` run them.
var seedFiles = []struct {
	target, name string
	data         []byte
	mode         uint8
}{
	{"FuzzLoadPDF", "cyclic-page-tree", ingesttest.CyclicPDF(), 0},
	{"FuzzLoadDOCX", "docx-bomb", ingesttest.DOCXBomb(1 << 20), 0},
}

// corpusFile is a corpus entry as `go test` writes it.
func corpusFile(data []byte, mode uint8) []byte {
	return []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbyte(%q)\n", data, mode))
}

// TestSeedCorpus checks that the committed corpus holds the hazard files as
// their generators make them; INGEST_UPDATE_CORPUS=1 rewrites them.
func TestSeedCorpus(t *testing.T) {
	for _, s := range seedFiles {
		path := filepath.Join("testdata", "fuzz", s.target, s.name)
		want := corpusFile(s.data, s.mode)
		if os.Getenv("INGEST_UPDATE_CORPUS") == "1" {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s is missing or stale (%v): run with INGEST_UPDATE_CORPUS=1", path, err)
		}
	}
	// The bomb is what its name says: far over MaxExpansion.
	if _, err := Load(context.Background(), "bomb.docx", seedFiles[1].data); memory.ErrorCode(err) != memory.ETOOLARGE {
		t.Fatalf("the committed DOCX bomb loads: %v", err)
	}
}
