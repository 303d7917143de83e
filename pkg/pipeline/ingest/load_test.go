package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
)

func TestLoad(t *testing.T) {
	pdf := ingesttest.MakePDF("Quarterly revenue grew eight percent.", "Hiring freeze ends in March.")
	docx := ingesttest.MakeDOCX("Vacation requests go to HR.", "Two weeks notice is required.")
	tests := []struct {
		name     string
		file     string
		data     []byte
		contains []string
		excludes []string
		err      string
	}{
		{"text", "a.txt", []byte("plain notes\nsecond line"), []string{"plain notes", "second line"}, nil, ""},
		{"markdown", "README.md", []byte("# Title\n\nSome *text*."), []string{"# Title", "Some *text*."}, nil, ""},
		{"html", "page.html", []byte(`<html><head><title>Handbook</title><style>p{color:red}</style><script>var x=1</script></head>
			<body><h1>Leave policy</h1><p>Ask   your <b>manager</b> first.</p><ul><li>One</li><li>Two</li></ul></body></html>`),
			[]string{"Handbook", "Leave policy", "Ask your manager first.", "One\n\nTwo"}, []string{"color:red", "var x"}, ""},
		{"json", "config.json", []byte(`{"team": {"name": "Platform", "members": ["ana", "bo"]}, "budget": 12000}`),
			[]string{"budget: 12000", "team.members[1]: bo", "team.name: Platform"}, nil, ""},
		{"pdf", "report.pdf", pdf, []string{"Quarterly revenue grew eight percent.", "Hiring freeze ends in March."}, nil, ""},
		{"docx", "policy.DOCX", docx, []string{"Vacation requests go to HR.", "Two weeks notice is required."}, nil, ""},
		{"empty", "a.txt", []byte("  \n"), nil, nil, "the file is empty"},
		{"unknown type", "photo.png", []byte{0x89, 'P', 'N', 'G'}, nil, nil, `unsupported file type ".png"`},
		{"not utf-8", "a.txt", []byte{0xff, 0xfe, 0x00}, nil, nil, "not UTF-8"},
		{"corrupt pdf", "broken.pdf", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("garbage "), 50)...), nil, nil, "corrupt PDF"},
		{"truncated pdf", "cut.pdf", pdf[:len(pdf)/2], nil, nil, "corrupt PDF"},
		{"corrupt docx", "broken.docx", []byte("PK not really a zip"), nil, nil, "corrupt DOCX"},
		{"docx without document", "empty.docx", func() []byte {
			var buf bytes.Buffer
			z := zip.NewWriter(&buf)
			z.Create("other.xml")
			z.Close()
			return buf.Bytes()
		}(), nil, nil, "no word/document.xml"},
		{"corrupt json", "bad.json", []byte(`{"a": `), nil, nil, "corrupt JSON"},
		{"html without text", "empty.html", []byte(`<html><script>x()</script></html>`), nil, nil, "no text could be extracted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, err := Load(context.Background(), tc.file, tc.data)
			if tc.err != "" {
				if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(memory.ErrorMessage(err), tc.err) ||
					!strings.Contains(memory.ErrorMessage(err), tc.file) {
					t.Fatalf("want an invalid error naming %s and %q, got %v", tc.file, tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.contains {
				if !strings.Contains(text, s) {
					t.Errorf("text lacks %q:\n%s", s, text)
				}
			}
			for _, s := range tc.excludes {
				if strings.Contains(text, s) {
					t.Errorf("text contains %q:\n%s", s, text)
				}
			}
		})
	}
}

func TestLoadLimits(t *testing.T) {
	nested := func(depth, leaves int) []byte {
		var b strings.Builder
		b.WriteString(strings.Repeat(`{"key":`, depth) + "[")
		for i := 0; i < leaves; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("0")
		}
		b.WriteString("]" + strings.Repeat("}", depth))
		return []byte(b.String())
	}
	manyEntries := func(n int) []byte {
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		for i := 0; i < n; i++ {
			z.Create(fmt.Sprintf("media/%d.bin", i))
		}
		w, _ := z.Create("word/document.xml")
		w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Hi</w:t></w:r></w:p></w:body></w:document>`))
		z.Close()
		return buf.Bytes()
	}
	tests := []struct {
		name   string
		file   string
		data   []byte
		limits Limits
		code   string
		want   string
	}{
		{"file over MaxBytes", "a.txt", []byte("0123456789a"), Limits{MaxBytes: 10}, memory.ETOOLARGE, "11 bytes exceeds the limit of 10 bytes (MaxBytes)"},
		{"text over MaxTextBytes", "a.txt", bytes.Repeat([]byte("a"), 200), Limits{MaxTextBytes: 100}, memory.ETOOLARGE, "the limit of 100 bytes of text (MaxTextBytes)"},
		{"a 22 KB DOCX bomb over MaxExpansion", "bomb.docx", ingesttest.DOCXBomb(6 << 20), Limits{}, memory.ETOOLARGE, "times the file's"},
		{"a DOCX part over MaxInflatedBytes", "big.docx", ingesttest.DOCXBomb(2 << 20), Limits{MaxInflatedBytes: 1 << 20, MaxExpansion: 1000},
			memory.ETOOLARGE, "more than 1048576 bytes (MaxInflatedBytes)"},
		{"a DOCX with more entries than MaxZipEntries", "many.docx", manyEntries(20), Limits{MaxZipEntries: 10}, memory.ETOOLARGE, "more than 10 entries (MaxZipEntries)"},
		{"a DOCX nested 2,000 levels", "deep.docx", func() []byte {
			var buf bytes.Buffer
			z := zip.NewWriter(&buf)
			w, _ := z.Create("word/document.xml")
			w.Write([]byte(strings.Repeat("<a>", 2000) + strings.Repeat("</a>", 2000)))
			z.Close()
			return buf.Bytes()
		}(), Limits{}, memory.EINVALID, "nested deeper than 1000 levels"},
		{"JSON nested 20,000 levels", "deep.json", []byte(strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)), Limits{}, memory.EINVALID, "nested deeper than 10000 levels"},
		{"JSON whose long paths repeat on every leaf", "paths.json", nested(1000, 20_000), Limits{}, memory.ETOOLARGE, "(MaxExpansion)"},
		{"a small JSON within the allowance", "small.json", nested(10, 10), Limits{}, "", "key.key.key.key.key.key.key.key.key.key[9]: 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, err := tc.limits.Load(context.Background(), tc.file, tc.data)
			if tc.code == "" {
				if err != nil || !strings.Contains(text, tc.want) {
					t.Fatalf("want text with %q, got %v", tc.want, err)
				}
				return
			}
			if memory.ErrorCode(err) != tc.code || !strings.Contains(memory.ErrorMessage(err), tc.want) ||
				!strings.HasPrefix(memory.ErrorMessage(err), tc.file+": ") {
				t.Fatalf("want %s naming %s and %q, got %v", tc.code, tc.file, tc.want, err)
			}
		})
	}
}

func TestLoadDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	// A loader stuck in a loop that never checks its context.
	loaders[".stuck"] = func(context.Context, []byte, int, Limits) (string, error) {
		<-release
		return "", nil
	}
	defer delete(loaders, ".stuck")
	_, err := Limits{Timeout: 50 * time.Millisecond}.Load(context.Background(), "a.stuck", []byte("x"))
	if memory.ErrorCode(err) != memory.ETOOLARGE || !strings.Contains(memory.ErrorMessage(err), "longer than the limit of 50ms (Timeout)") {
		t.Fatalf("want ETOOLARGE naming the Timeout, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Load(ctx, "a.stuck", []byte("x"))
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(memory.ErrorMessage(err), "interrupted") {
		t.Fatalf("a caller that gives up is not the document's fault: want EUNAVAILABLE, got %v", err)
	}
}

func TestSplitLimit(t *testing.T) {
	text := strings.Repeat("word ", 1000)
	if _, err := (Limits{MaxFragments: 5}).Split("a.txt", Splitter{Size: 100, Overlap: 10}, text); memory.ErrorCode(err) != memory.ETOOLARGE ||
		memory.ErrorMessage(err) != "a.txt: more than 5 fragments (MaxFragments)" {
		t.Fatalf("want ETOOLARGE naming MaxFragments, got %v", err)
	}
	chunks, err := (Limits{MaxFragments: 100}).Split("a.txt", Splitter{Size: 100, Overlap: 10}, text)
	if err != nil || len(chunks) != len(Splitter{Size: 100, Overlap: 10}.Split(text)) {
		t.Fatalf("within the limit: %d chunks, %v", len(chunks), err)
	}
}

func TestLoadPanicFailsAlone(t *testing.T) {
	loaders[".boom"] = func(context.Context, []byte, int, Limits) (string, error) { panic("a loader bug") }
	defer delete(loaders, ".boom")
	_, err := Load(context.Background(), "a.boom", []byte("x"))
	if memory.ErrorCode(err) != memory.EINVALID || memory.ErrorMessage(err) != "a.boom: the file could not be read (loader failure)" ||
		!strings.Contains(err.Error(), "panic: a loader bug") {
		t.Fatalf("want EINVALID for the caller and the panic for the log, got %v", err)
	}
}
