package ingest

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/pipeline/ingest/ingesttest"
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
			text, err := Load(tc.file, tc.data)
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
