package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
)

// loadPDF extracts the text of a PDF, page by page in the page tree's
// order, with github.com/ledongthuc/pdf.
//
// The library trusts the file: its Reader.Page descends into any /Kids
// entry whose /Count is large enough, without a visited set or a depth
// bound, so a /Pages node that lists itself (or an ancestor) among its
// kids sends it round for ever (a ~600-byte file did: the document stayed
// pending and a worker burned a core); NumPage trusts /Count, so a count of
// 2^62 loops as long; inherited attributes follow /Parent without a bound;
// /Prev chains of cross-reference sections, object streams that extend
// each other, an /N of 2^62 and an unterminated hex string at the end of a
// content stream all loop; a predictor's /Columns, an xref stream's /Size
// and a character map's block counts allocate what they claim. A loop
// inside the library cannot be stopped from outside, so they are
// prevented, not timed out:
//
//   - checkPDF reads the cross-reference sections and object streams
//     first, with a lexer that reads as the library's does, and refuses
//     the hazards above;
//   - the page tree is walked here, not with Reader.Page: a depth bound, a
//     cycle check (a /Pages node identical to one of its ancestors, that
//     is, the same object), shared subtrees read once, and MaxPDFPages;
//     inherited resources come down the walk, never up /Parent;
//   - each page's content and each font's character map are decompressed
//     within MaxInflatedBytes and scanned (scanPS) before the library
//     interprets them;
//   - the text is taken from the library's Interpret with an operator
//     callback of our own, which decodes strings in slices, stays within
//     the text budget and stops at the deadline.
//
// Residual risk: the library still parses each object (bounded by the
// file), decompresses an object stream on each lookup (bounded by
// pdfMaxObjStmBytes, or for encrypted files by its compressed size), and
// decodes one slice of a string at a time; a pathological file can keep
// the goroutine busy that long after the deadline, never for ever.
func loadPDF(ctx context.Context, data []byte, budget int, l Limits) (string, error) {
	file, err := checkPDF(data, l.MaxInflatedBytes)
	if err != nil {
		return "", err
	}
	x := &pdfText{ctx: ctx, l: l, inflated: file.inflated, fonts: map[[32]byte]pdf.TextEncoding{}}
	var r *pdf.Reader
	if err := x.call(func() error {
		var err error
		r, err = pdf.NewReader(bytes.NewReader(data), int64(len(data)))
		return err
	}); err != nil {
		return "", err
	}
	var pages []pdfPage
	if err := x.call(func() error {
		var err error
		pages, err = x.pages(r)
		return err
	}); err != nil {
		return "", err
	}
	out := newTextBuf(budget)
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		var text string
		err := x.call(func() error {
			var err error
			text, err = x.page(p, budget-out.Len())
			return err
		})
		if errors.Is(err, errOverBudget) {
			return "", err
		}
		var le *limitError
		if errors.As(err, &le) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return "", err
		}
		if err != nil {
			return "", fmt.Errorf("%v (page %d)", err, i+1)
		}
		out.WriteString(strings.TrimSpace(text))
		out.WriteString("\n\n")
		if err := out.Err(); err != nil {
			return "", err
		}
	}
	return out.String(), nil
}

// pdfText holds the state of one PDF's extraction.
type pdfText struct {
	ctx      context.Context
	l        Limits
	inflated int
	fonts    map[[32]byte]pdf.TextEncoding // by the font dictionary
}

// pdfStop carries an error out of the library's Interpret.
type pdfStop struct{ err error }

// call runs fn, which calls into the library, and turns the library's
// panics on broken files into "corrupt PDF" errors.
func (x *pdfText) call(fn func() error) (err error) {
	defer func() {
		switch p := recover().(type) {
		case nil:
		case pdfStop:
			err = p.err
		default: // the library's parse errors, and its runtime errors on broken input
			err = fmt.Errorf("corrupt PDF: %v", p)
		}
	}()
	if err := fn(); err != nil {
		var le *limitError
		if errors.As(err, &le) || errors.Is(err, errOverBudget) || errors.Is(err, context.Canceled) ||
			errors.Is(err, context.DeadlineExceeded) || strings.HasPrefix(err.Error(), "corrupt PDF") {
			return err
		}
		return fmt.Errorf("corrupt PDF: %v", err)
	}
	return nil
}

// pdfPage is a leaf of the page tree, with the resources it inherits.
type pdfPage struct {
	v, resources pdf.Value
}

// identity names a PDF object by its content, references included: two
// /Pages nodes with the same content have the same kids, so meeting one
// again below itself is a cycle.
func identity(v pdf.Value) [32]byte { return sha256.Sum256([]byte(v.String())) }

// pages walks the page tree from the catalog, in order.
func (x *pdfText) pages(r *pdf.Reader) ([]pdfPage, error) {
	root := r.Trailer().Key("Root").Key("Pages")
	var pages []pdfPage
	onPath := map[[32]byte]bool{}
	seen := map[[32]byte]bool{}
	nodes := 0
	var visit func(node, res pdf.Value, depth int) error
	visit = func(node, res pdf.Value, depth int) error {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if depth > pdfMaxTreeDepth {
			return fmt.Errorf("corrupt PDF: the page tree is deeper than %d levels", pdfMaxTreeDepth)
		}
		if nodes++; nodes > 2*x.l.MaxPDFPages+pdfMaxTreeDepth {
			return tooLarge("its page tree has more than %d nodes (twice MaxPDFPages)", 2*x.l.MaxPDFPages+pdfMaxTreeDepth)
		}
		if v := node.Key("Resources"); !v.IsNull() {
			res = v
		}
		switch node.Key("Type").Name() {
		case "Page":
			if len(pages) == x.l.MaxPDFPages {
				return tooLarge("more than %d pages (MaxPDFPages)", x.l.MaxPDFPages)
			}
			pages = append(pages, pdfPage{node, res})
		case "Pages":
			id := identity(node)
			if onPath[id] {
				return fmt.Errorf("corrupt PDF: the page tree is cyclic (a /Pages node is among its own descendants)")
			}
			if seen[id] {
				return nil // a subtree reached twice: its pages are in already
			}
			onPath[id], seen[id] = true, true
			kids := node.Key("Kids")
			for i := 0; i < kids.Len(); i++ {
				if err := visit(kids.Index(i), res, depth+1); err != nil {
					return err
				}
			}
			onPath[id] = false
		}
		return nil
	}
	if err := visit(root, pdf.Value{}, 0); err != nil {
		return nil, err
	}
	return pages, nil
}

// pdfMaxContents bounds the streams of one page's /Contents array.
const pdfMaxContents = 4096

// read decompresses a stream within what is left of MaxInflatedBytes, and
// at most max bytes.
func (x *pdfText) read(v pdf.Value, max int, what string) ([]byte, error) {
	if err := checkPredictor(v); err != nil {
		return nil, err
	}
	left := x.l.MaxInflatedBytes - x.inflated
	rc := v.Reader()
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, int64(min(left, max))+1))
	x.inflated += len(b)
	if x.inflated > x.l.MaxInflatedBytes {
		return nil, tooLarge("its streams decompress to more than %d bytes (MaxInflatedBytes)", x.l.MaxInflatedBytes)
	}
	if len(b) > max {
		return nil, fmt.Errorf("corrupt PDF: %s decompresses to more than %d bytes", what, max)
	}
	if err != nil {
		return nil, fmt.Errorf("corrupt PDF: %s: %v", what, err)
	}
	return b, nil
}

// checkPredictor refuses a PNG predictor whose /Columns the library
// would allocate without bound.
func checkPredictor(v pdf.Value) error {
	params := []pdf.Value{v.Key("DecodeParms")}
	if params[0].Kind() == pdf.Array {
		p := params[0]
		params = params[:0]
		for i := 0; i < p.Len() && i < 64; i++ {
			params = append(params, p.Index(i))
		}
	}
	for _, p := range params {
		if c := p.Key("Columns").Int64(); !p.Key("Predictor").IsNull() && (c < 0 || c > pdfMaxColumns) {
			return fmt.Errorf("corrupt PDF: a predictor with %d columns", c)
		}
	}
	return nil
}

// page returns the text of one page, at most budget bytes.
func (x *pdfText) page(p pdfPage, budget int) (string, error) {
	contents := p.v.Key("Contents")
	var streams []pdf.Value
	switch contents.Kind() {
	case pdf.Null:
		return "", nil
	case pdf.Stream:
		streams = []pdf.Value{contents}
	case pdf.Array:
		if contents.Len() > pdfMaxContents {
			return "", fmt.Errorf("corrupt PDF: more than %d content streams", pdfMaxContents)
		}
		for i := 0; i < contents.Len(); i++ {
			s := contents.Index(i)
			if s.Kind() != pdf.Stream {
				return "", fmt.Errorf("corrupt PDF: the page content is not a stream")
			}
			streams = append(streams, s)
		}
	default:
		return "", fmt.Errorf("corrupt PDF: the page content is not a stream")
	}
	var content []byte
	for _, s := range streams {
		b, err := x.read(s, x.l.MaxInflatedBytes, "the page content")
		if err != nil {
			return "", err
		}
		content = append(content, b...)
	}
	if err := scanPS(content, psContent); err != nil {
		return "", fmt.Errorf("corrupt PDF: page content: %v", err)
	}
	out := newTextBuf(budget)
	local := map[string]pdf.TextEncoding{}
	var enc pdf.TextEncoding = nopEncoding{}
	ops := 0
	check := func() {
		if err := x.ctx.Err(); err != nil {
			panic(pdfStop{err})
		}
		if err := out.Err(); err != nil {
			panic(pdfStop{err})
		}
	}
	// show decodes a string in slices, so that no one call can produce much
	// more than the budget or run long after the deadline.
	show := func(raw string) {
		for len(raw) > 0 {
			n := min(len(raw), 1024)
			out.WriteString(enc.Decode(raw[:n]))
			raw = raw[n:]
			check()
		}
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		if ops++; ops&255 == 0 {
			check()
		}
		last := pdf.Value{}
		if len(args) > 0 {
			last = args[len(args)-1]
		}
		switch op {
		case "BT", "T*":
			out.WriteString("\n")
		case "Tf":
			if len(args) >= 2 {
				name := args[len(args)-2].Name()
				e, ok := local[name]
				if !ok {
					var err error
					if e, err = x.font(p.resources.Key("Font").Key(name)); err != nil {
						panic(pdfStop{err})
					}
					local[name] = e
				}
				enc = e
			}
		case "'", "\"":
			out.WriteString("\n")
			show(last.RawString())
		case "Tj":
			show(last.RawString())
		case "TJ":
			for i := 0; i < last.Len(); i++ {
				if s := last.Index(i); s.Kind() == pdf.String {
					show(s.RawString())
				}
			}
		}
	})
	check()
	return out.String(), nil
}

// nopEncoding passes codes through, as the library does for unknown fonts.
type nopEncoding struct{}

func (nopEncoding) Decode(raw string) string { return raw }

// tableEncoding maps each byte to a string.
type tableEncoding [256]string

func (t *tableEncoding) Decode(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		b.WriteString(t[raw[i]])
	}
	return b.String()
}

// pdfMaxDifferences bounds a font encoding's /Differences array.
const pdfMaxDifferences = 4096

// font returns the text encoding of a font dictionary, through the
// library, once its character map has been checked; fonts are shared
// between pages.
func (x *pdfText) font(v pdf.Value) (pdf.TextEncoding, error) {
	if v.Kind() != pdf.Dict {
		return nopEncoding{}, nil
	}
	id := identity(v)
	if e, ok := x.fonts[id]; ok {
		return e, nil
	}
	f := &pdf.Font{V: v}
	var e pdf.TextEncoding
	switch enc := v.Key("Encoding"); {
	case enc.Kind() == pdf.Dict:
		// The library's decoder scans /Differences for every byte: decode
		// each byte once instead.
		if n := enc.Key("Differences").Len(); n > pdfMaxDifferences {
			return nil, fmt.Errorf("corrupt PDF: a font encoding with %d differences (at most %d)", n, pdfMaxDifferences)
		}
		lib := f.Encoder()
		t := &tableEncoding{}
		for b := range t {
			t[b] = lib.Decode(string([]byte{byte(b)}))
		}
		e = t
	case enc.Kind() == pdf.Null || enc.Kind() == pdf.Name && enc.Name() == "Identity-H":
		if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
			cmap, err := x.read(tu, pdfMaxCMapBytes, "a font's character map")
			if err != nil {
				return nil, err
			}
			if err := scanPS(cmap, psCMap); err != nil {
				return nil, fmt.Errorf("corrupt PDF: %v", err)
			}
		}
		e = f.Encoder()
	default:
		e = f.Encoder()
	}
	if e == nil {
		e = nopEncoding{}
	}
	x.fonts[id] = e
	return e, nil
}
