package ingesttest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"strings"
)

// CyclicPDF is a ~600-byte PDF whose page tree points back at itself: the
// root /Pages node lists itself among its /Kids, before its one page. A
// reader that descends /Kids without a visited set loops for ever.
func CyclicPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	content := "BT /F1 12 Tf 72 720 Td (Never reached.) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	var offsets []int
	for i, body := range objs {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// DOCXBomb is a small Word document whose word/document.xml, highly
// compressible, expands to about xmlBytes bytes: one short paragraph
// repeated, about half of it text.
func DOCXBomb(xmlBytes int) []byte {
	const para = `<w:p><w:r><w:t>All work and no play makes Jack a dull boy.</w:t></w:r></w:p>`
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	z.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	w, _ := z.Create("[Content_Types].xml")
	w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`))
	w, _ = z.Create("word/document.xml")
	w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`))
	chunk := []byte(strings.Repeat(para, 1000))
	for n := 0; n < xmlBytes; n += len(chunk) {
		w.Write(chunk)
	}
	w.Write([]byte(`</w:body></w:document>`))
	z.Close()
	return buf.Bytes()
}
