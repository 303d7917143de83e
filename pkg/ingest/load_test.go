package ingest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// makePDF writes a valid one-page-per-line PDF with a Helvetica text line
// on each page, its cross-reference table computed from the real offsets.
func makePDF(pages ...string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	n := len(pages)
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, p := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", p)
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// makeDOCX writes a minimal Word document: one paragraph per argument.
func makeDOCX(paras ...string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("[Content_Types].xml")
	w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`))
	var body strings.Builder
	for _, p := range paras {
		// Two runs per paragraph, as Word splits text at formatting changes.
		half := len(p) / 2
		fmt.Fprintf(&body, `<w:p><w:r><w:t xml:space="preserve">%s</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>%s</w:t></w:r></w:p>`, p[:half], p[half:])
	}
	w, _ = z.Create("word/document.xml")
	w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`))
	z.Close()
	return buf.Bytes()
}

func TestLoad(t *testing.T) {
	pdf := makePDF("Quarterly revenue grew eight percent.", "Hiring freeze ends in March.")
	docx := makeDOCX("Vacation requests go to HR.", "Two weeks notice is required.")
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
