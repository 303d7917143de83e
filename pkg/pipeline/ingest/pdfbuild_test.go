package ingest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
)

// rawPDF writes a PDF from object bodies (object i+1 is objs[i]) with a
// classic cross-reference table whose offsets are the real ones; trailer
// holds extra trailer entries ("/Prev 9" ...). Object 1 is the catalog.
func rawPDF(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, body := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	trailer = strings.ReplaceAll(trailer, "XREF", fmt.Sprint(xref)) // the table's own offset
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return padPDF(b.Bytes())
}

// padPDF puts a comment in front of the trailer of a file shorter than the
// library's 100-byte tail window, which it requires.
func padPDF(b []byte) []byte {
	if len(b) >= 100 {
		return b
	}
	return append([]byte("%PDF-1.4\n%"+strings.Repeat("-", 100)+"\n"), b[len("%PDF-1.4\n"):]...)
}

// stream is a stream object's body.
func stream(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// deflate compresses s with zlib, as FlateDecode expects.
func deflate(s string) string {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// xrefRow is one entry of a cross-reference stream: type 1 (offset,
// generation) or 2 (object stream, index).
type xrefRow struct{ typ, a, b int }

// streamPDF writes a PDF 1.5 file: objs are written plainly (object i+1),
// compressed lists objects stored in object streams as extra rows, and the
// cross-reference table is an uncompressed stream (W [1 4 2]).
func streamPDF(objs []string, extra map[int]xrefRow, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	rows := map[int]xrefRow{}
	for i, body := range objs {
		rows[i+1] = xrefRow{1, b.Len(), 0}
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	size := len(objs) + 2 // and the xref stream itself
	for id, r := range extra {
		rows[id] = r
		size = max(size, id+1)
	}
	xrefID := len(objs) + 1
	rows[xrefID] = xrefRow{1, b.Len(), 0}
	var data bytes.Buffer
	for id := 0; id < size; id++ {
		r := rows[id]
		data.WriteByte(byte(r.typ))
		binary.Write(&data, binary.BigEndian, uint32(r.a))
		binary.Write(&data, binary.BigEndian, uint16(r.b))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", xrefID,
		stream(fmt.Sprintf("/Type /XRef /Size %d /W [1 4 2] /Root 1 0 R %s", size, trailer), data.String()))
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}

// objStm is the body of an object stream holding objs (id → body).
func objStm(dict string, ids []int, bodies []string) string {
	var head, body strings.Builder
	for i, id := range ids {
		fmt.Fprintf(&head, "%d %d ", id, body.Len())
		body.WriteString(bodies[i] + " ")
	}
	return stream(fmt.Sprintf("/Type /ObjStm /N %d /First %d %s", len(ids), head.Len(), dict), head.String()+body.String())
}

// onePage is the objects of a one-page file showing text in Helvetica
// (catalog 1, pages 2, page 3, content 4, font 5).
func onePage(text string) []string {
	content := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
	return []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream("", content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
}

// cyclicPDF is the hanging file: a /Pages node whose /Kids lists itself
// before its one page, so that the library's Reader.Page descends into it
// for ever.
func cyclicPDF() []byte { return ingesttest.CyclicPDF() }
