package ingest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
)

// loadGuarded runs Limits.Load and fails the test, rather than hang it,
// if it does not return: the hazards below looped for ever before.
func loadGuarded(t *testing.T, l Limits, name string, data []byte) (string, error) {
	t.Helper()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := l.Load(context.Background(), name, data)
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		return r.text, r.err
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s: Load did not return", name)
		return "", nil
	}
}

// withContent is onePage with its content stream replaced.
func withContent(dict, content string) []byte {
	objs := onePage("")
	objs[3] = stream(dict, content)
	return rawPDF(objs, "")
}

// withCMap is onePage with a ToUnicode character map on its font.
func withCMap(cmap string) []byte {
	objs := append(onePage("ABC"), stream("", cmap))
	objs[4] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>"
	return rawPDF(objs, "")
}

const cmapHead = "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00> <FF> endcodespacerange "

// hazardCase is a hand-made PDF: most of these looped for ever or crashed
// the process in the library before the checks (see loadPDF).
type hazardCase struct {
	name   string
	data   []byte
	limits Limits
	code   string // "" for success
	want   string // in the error, or in the text
}

func hazardFixtures() []hazardCase {
	page := onePage("Hello from a page.")
	deepTree := func(levels int) []byte {
		objs := append([]string{}, page...)
		parent := 2
		for i := 0; i < levels; i++ {
			id := len(objs) + 1
			objs[parent-1] = fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", id)
			objs = append(objs, "")
			parent = id
		}
		objs[parent-1] = "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
		return rawPDF(objs, "")
	}
	// Object 2 (the page tree) lives in object stream 6; the plain objects
	// are the catalog, the page, its content and font, and the stream.
	// (Object 2 is written as a plain null placeholder; the table says
	// it is compressed.)
	compressed := func(stm string, extra map[int]xrefRow) []byte {
		rows := map[int]xrefRow{2: {2, 6, 0}}
		for k, v := range extra {
			rows[k] = v
		}
		return streamPDF([]string{page[0], "null", page[2], page[3], page[4], stm}, rows, "")
	}
	pagesInStm := objStm("", []int{2}, []string{page[1]})
	tests := []hazardCase{
		{"cyclic page tree: a /Pages node among its kids", cyclicPDF(), Limits{}, memory.EINVALID, "the page tree is cyclic"},
		{"cyclic page tree through a child", func() []byte {
			objs := append(append([]string{}, page...), "<< /Type /Pages /Kids [2 0 R 3 0 R] /Parent 2 0 R /Count 1 >>")
			objs[1] = "<< /Type /Pages /Kids [6 0 R] /Count 1 >>"
			return rawPDF(objs, "")
		}(), Limits{}, memory.EINVALID, "the page tree is cyclic"},
		{"a shared subtree is read once", func() []byte {
			objs := append(append([]string{}, page...), "<< /Type /Pages /Kids [3 0 R] /Parent 2 0 R /Count 1 >>")
			objs[1] = "<< /Type /Pages /Kids [6 0 R 6 0 R] /Count 2 >>"
			return rawPDF(objs, "")
		}(), Limits{}, "", "Hello from a page."},
		{"a page tree 70 levels deep", deepTree(70), Limits{}, memory.EINVALID, "deeper than 64 levels"},
		{"a page tree 10 levels deep", deepTree(10), Limits{}, "", "Hello from a page."},
		{"an absurd /Count is not trusted", func() []byte {
			objs := append([]string{}, page...)
			objs[1] = "<< /Type /Pages /Kids [3 0 R] /Count 4611686018427387904 >>"
			return rawPDF(objs, "")
		}(), Limits{}, "", "Hello from a page."},
		{"a page that is its own /Parent inherits down the tree", func() []byte {
			objs := append([]string{}, page...)
			objs[1] = "<< /Type /Pages /Kids [3 0 R] /Count 1 /Resources << /Font << /F1 5 0 R >> >> >>"
			objs[2] = "<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>"
			return rawPDF(objs, "")
		}(), Limits{}, "", "Hello from a page."},
		{"cross-reference sections that loop", rawPDF(page, "/Prev XREF"), Limits{}, memory.EINVALID, "the cross-reference sections loop"},
		{"a cross-reference table that claims object 900,000,000", bytes.Replace(rawPDF(page, ""), []byte("trailer\n"),
			[]byte("900000000 1\n0000000009 00000 n \ntrailer\n"), 1), Limits{}, memory.EINVALID, "claims 900000001 objects"},
		{"pages in an object stream", compressed(pagesInStm, nil), Limits{}, "", "Hello from a page."},
		{"an object stream that claims 10^15 objects and lacks the one wanted", compressed(strings.Replace(
			objStm("", []int{99}, []string{"null"}), "/N 1", "/N 1000000000000000", 1), nil),
			Limits{}, memory.EINVALID, "claims 1000000000000000 objects"},
		{"object streams that extend each other", func() []byte {
			objs := []string{page[0], "null", page[2], page[3], page[4],
				objStm("/Extends 7 0 R", []int{99}, []string{"null"}), objStm("/Extends 6 0 R", []int{98}, []string{"null"})}
			return streamPDF(objs, map[int]xrefRow{2: {2, 6, 0}}, "")
		}(), Limits{}, memory.EINVALID, "the /Extends chain loops"},
		{"an object stream inside itself", compressed(pagesInStm, map[int]xrefRow{6: {2, 6, 0}}), Limits{}, memory.EINVALID, "itself in an object stream"},
		{"an object stream whose /N is compressed", compressed(strings.Replace(pagesInStm, "/N 1", "/N 2 0 R", 1), nil),
			Limits{}, memory.EINVALID, "itself in an object stream"},
		{"an unterminated hex string ends the content", withContent("", "BT /F1 12 Tf (Hi) Tj ET <41"), Limits{}, memory.EINVALID, "unterminated hex string"},
		{"a flood of operands", withContent("", strings.Repeat("1 ", 70_000)+"BT (Hi) Tj ET"), Limits{}, memory.EINVALID, "operands without an operator"},
		{"a predictor with 10^11 columns", withContent("/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 99999999999 >>",
			deflate("BT (Hi) Tj ET")), Limits{}, memory.EINVALID, "99999999999 columns"},
		{"a content stream bomb", withContent("/Filter /FlateDecode", deflate("BT (Hi) Tj ET"+strings.Repeat(" ", 2<<20))),
			Limits{MaxInflatedBytes: 1 << 20}, memory.ETOOLARGE, "more than 1048576 bytes (MaxInflatedBytes)"},
		{"a character map block that claims 10^8 mappings", withCMap(cmapHead + "99999999 beginbfchar endbfchar endcmap"),
			Limits{}, memory.EINVALID, "beginbfchar does not follow a count"},
		{"a character map that ends the same block again and again", withCMap(cmapHead + "100 beginbfchar <41> <0061> " +
			strings.Repeat("endbfchar ", 1000) + "endcmap"), Limits{}, memory.EINVALID, "more than 65536 mappings"},
		{"a character map that maps", withCMap(cmapHead + "1 beginbfchar <41> <0078> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end"),
			Limits{}, "", "x\uFFFD\uFFFD"},
		{"the quote operators show text", withContent("", `BT /F1 12 Tf (one) ' 1 2 (two) " ET`), Limits{}, "", "one\ntwo"},
		{"more pages than MaxPDFPages", ingesttest.MakePDF("a", "b", "c"), Limits{MaxPDFPages: 2}, memory.ETOOLARGE, "more than 2 pages (MaxPDFPages)"},
	}
	return tests
}

func TestLoadPDFHazards(t *testing.T) {
	for _, tc := range hazardFixtures() {
		t.Run(tc.name, func(t *testing.T) {
			text, err := loadGuarded(t, tc.limits, "hazard.pdf", tc.data)
			if tc.code == "" {
				if err != nil || !strings.Contains(text, tc.want) {
					t.Fatalf("want text with %q, got %q, %v", tc.want, text, err)
				}
				return
			}
			if memory.ErrorCode(err) != tc.code || !strings.Contains(memory.ErrorMessage(err), tc.want) ||
				!strings.HasPrefix(memory.ErrorMessage(err), "hazard.pdf: ") {
				t.Fatalf("want %s naming the file and %q, got %v (text %q)", tc.code, tc.want, err, text)
			}
		})
	}
}
