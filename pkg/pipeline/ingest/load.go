package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
	"golang.org/x/net/html"
)

// Formats lists the file extensions Load reads.
var Formats = []string{".txt", ".md", ".markdown", ".html", ".htm", ".json", ".pdf", ".docx"}

// A loader extracts the text of one format, within budget bytes of text and
// the limits l, checking ctx as it goes. It returns a *limitError for a
// limit other than the text budget, errOverBudget for that one.
type loader func(ctx context.Context, data []byte, budget int, l Limits) (string, error)

var loaders = map[string]loader{
	".txt": loadText, ".md": loadText, ".markdown": loadText,
	".html": loadHTML, ".htm": loadHTML,
	".json": loadJSON,
	".pdf":  loadPDF,
	".docx": loadDOCX,
}

// errTimeout is the cause of a load that ran out of time.
var errTimeout = errors.New("load timeout")

// Load extracts the text of a file, chosen by its extension, within
// DefaultLimits; see Limits.Load.
func Load(ctx context.Context, name string, data []byte) (string, error) {
	return DefaultLimits.Load(ctx, name, data)
}

// loadSlots bounds the documents parsed at once in this process to half
// the cores (at least one).
var loadSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

// Load extracts the text of a file, chosen by its extension. Unknown
// types, empty files and files that cannot be parsed are EINVALID with a
// reason that names the problem; a file that exceeds one of the limits
// (size, text, expansion, pages, archive entries, decompressed bytes, time)
// is ETOOLARGE naming the limit and its value. The text is valid UTF-8. If
// ctx ends first, the error is EUNAVAILABLE: the document is not at fault.
//
// Every loader runs under the Timeout in its own goroutine and checks the
// deadline as it goes, so that the caller gets its answer at the deadline
// even from a pathological file. A goroutine cannot be stopped from
// outside, though: a loop inside a library call that never checks would
// run on after the caller has its error. That is why the PDF loader
// validates, before the library sees them, the structures the library
// walks without bounds (see loadPDF).
//
// Libraries: HTML with golang.org/x/net/html (the Go project's parser); PDF
// with github.com/ledongthuc/pdf (pure Go; its panics on broken files are
// recovered into errors); DOCX with the standard library (archive/zip and
// encoding/xml: the text is in word/document.xml's runs); JSON with
// encoding/json's streaming tokenizer.
func (l Limits) Load(ctx context.Context, name string, data []byte) (string, error) {
	l = l.withDefaults()
	if len(data) > l.MaxBytes {
		return "", memory.Errorf(memory.ETOOLARGE, "%s: %d bytes exceeds the limit of %d bytes (MaxBytes)", name, len(data), l.MaxBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "", memory.Errorf(memory.EINVALID, "%s: the file is empty", name)
	}
	ext := strings.ToLower(path.Ext(name))
	load := loaders[ext]
	if load == nil {
		return "", memory.Errorf(memory.EINVALID, "%s: unsupported file type %q (supported: %s)", name, ext, strings.Join(Formats, ", "))
	}
	budget, why := l.textBudget(len(data))
	// At most half the cores parse documents at once (loadSlots): a
	// burst of hostile files, each parsed up to its limits, must leave
	// the other tenants' searches a core. The wait is not the file's: it
	// does not count against its Timeout.
	select {
	case loadSlots <- struct{}{}:
		defer func() { <-loadSlots }()
	case <-ctx.Done():
		return "", memory.Errorf(memory.EUNAVAILABLE, "%s: loading was interrupted while waiting for a loader: %v", name, context.Cause(ctx))
	}
	ctx, cancel := context.WithTimeoutCause(ctx, l.Timeout, errTimeout)
	defer cancel()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1) // buffered: a loader finishing late does not block
	go func() {
		defer func() {
			if p := recover(); p != nil {
				// A bug, not the file's fault, but the file is what
				// triggers it: it fails alone (retrying would panic again),
				// and the stack goes to the log.
				stack := debug.Stack()
				slog.ErrorContext(ctx, "ingest: loader panic", "file", name, "panic", fmt.Sprint(p), "stack", string(stack))
				done <- result{err: errors.Join(memory.Errorf(memory.EINVALID, "%s: the file could not be read (loader failure)", name),
					fmt.Errorf("ingest: load %s: panic: %v\n%s", name, p, stack))}
			}
		}()
		text, err := load(ctx, data, budget, l)
		done <- result{text, err}
	}()
	var r result
	got := false
	select {
	case r = <-done:
		got = true
	case <-ctx.Done():
	}
	if !got || (r.err != nil && ctx.Err() != nil) {
		if context.Cause(ctx) == errTimeout {
			return "", memory.Errorf(memory.ETOOLARGE, "%s: loading took longer than the limit of %v (Timeout)", name, l.Timeout)
		}
		return "", memory.Errorf(memory.EUNAVAILABLE, "%s: loading was interrupted: %v", name, context.Cause(ctx))
	}
	var le *limitError
	switch {
	case r.err == nil:
	case errors.Is(r.err, errOverBudget):
		return "", memory.Errorf(memory.ETOOLARGE, "%s: the extracted text exceeds %s", name, why)
	case errors.As(r.err, &le):
		return "", memory.Errorf(memory.ETOOLARGE, "%s: %s", name, le.msg)
	case memory.ErrorCode(r.err) != memory.EINTERNAL:
		return "", r.err
	default:
		return "", memory.Errorf(memory.EINVALID, "%s: %v", name, r.err)
	}
	text := strings.ToValidUTF8(r.text, "\uFFFD")
	if len(text) > budget {
		return "", memory.Errorf(memory.ETOOLARGE, "%s: the extracted text exceeds %s", name, why)
	}
	if strings.TrimSpace(text) == "" {
		return "", memory.Errorf(memory.EINVALID, "%s: no text could be extracted", name)
	}
	return text, nil
}

// pace checks, every 1024th call, whether ctx has ended; loaders call it in
// their loops.
type pace struct {
	ctx context.Context
	n   int
}

func (p *pace) check() error {
	if p.n++; p.n&1023 != 0 {
		return nil
	}
	return p.ctx.Err()
}

func loadText(_ context.Context, data []byte, budget int, _ Limits) (string, error) {
	if !utf8.Valid(data) {
		return "", fmt.Errorf("not UTF-8 text")
	}
	if len(data) > budget {
		return "", errOverBudget
	}
	return string(data), nil
}

// blocks are the HTML elements that end a line of text.
var blocks = map[string]bool{"p": true, "div": true, "br": true, "li": true, "tr": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "section": true, "article": true, "header": true, "footer": true,
	"blockquote": true, "pre": true, "table": true, "ul": true, "ol": true, "title": true}

func loadHTML(ctx context.Context, data []byte, budget int, _ Limits) (string, error) {
	z := html.NewTokenizer(bytes.NewReader(data))
	b := newTextBuf(budget)
	p := pace{ctx: ctx}
	skip := 0
	for {
		if err := p.check(); err != nil {
			return "", err
		}
		if err := b.Err(); err != nil {
			return "", err
		}
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return collapseLines(b.String()), nil
			}
			return "", fmt.Errorf("corrupt HTML: %v", z.Err())
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch tag := string(name); {
			case tag == "script" || tag == "style" || tag == "noscript" || tag == "template":
				skip++
			case blocks[tag]:
				b.WriteString("\n")
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch tag := string(name); {
			case tag == "script" || tag == "style" || tag == "noscript" || tag == "template":
				if skip > 0 {
					skip--
				}
			case blocks[tag]:
				b.WriteString("\n")
			}
		case html.TextToken:
			if skip == 0 {
				b.WriteString(strings.Join(strings.Fields(string(z.Text())), " "))
				b.WriteString(" ")
			}
		}
	}
}

// collapseLines trims every line and folds runs of blank lines into one.
func collapseLines(s string) string {
	var out []string
	blank := false
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, line)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// maxJSONDepth bounds the nesting of a JSON document, as encoding/json
// does when it decodes into values.
const maxJSONDepth = 10_000

// loadJSON renders a JSON document as "path: value" lines, in the
// document's order, so that keys give words to search and values keep
// their context. It streams the tokens: memory stays proportional to the
// nesting, not to the document.
func loadJSON(ctx context.Context, data []byte, budget int, _ Limits) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	b := newTextBuf(budget)
	p := pace{ctx: ctx}
	type frame struct {
		array     bool
		index     int
		base      int    // length of the container's own path
		key       string // the pending key of an object
		expectKey bool
	}
	var stack []frame
	var path []byte
	// begin sets path to the path of the value that starts now.
	begin := func() {
		if len(stack) == 0 {
			path = path[:0]
			return
		}
		f := &stack[len(stack)-1]
		path = path[:f.base]
		if f.array {
			path = append(path, '[')
			path = strconv.AppendInt(path, int64(f.index), 10)
			path = append(path, ']')
			f.index++
			return
		}
		if f.base > 0 {
			path = append(path, '.')
		}
		path = append(path, f.key...)
		f.expectKey = true
	}
	emit := func(v string) {
		if len(path) == 0 && strings.TrimSpace(v) == "" {
			return // nothing to search: no key, no value
		}
		if len(path) > 0 {
			b.Write(path)
			b.WriteString(": ")
		}
		b.WriteString(v)
		b.WriteString("\n")
	}
	for started := false; !started || len(stack) > 0; started = true {
		if err := p.check(); err != nil {
			return "", err
		}
		if err := b.Err(); err != nil {
			return "", err
		}
		tok, err := dec.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", fmt.Errorf("corrupt JSON: %v", err)
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) == maxJSONDepth {
					return "", fmt.Errorf("corrupt JSON: nested deeper than %d levels", maxJSONDepth)
				}
				begin()
				stack = append(stack, frame{array: t == '[', base: len(path), expectKey: true})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if f := len(stack) - 1; f >= 0 && !stack[f].array && stack[f].expectKey {
				stack[f].key, stack[f].expectKey = t, false
				continue
			}
			begin()
			emit(t)
		case json.Number:
			begin()
			emit(string(t))
		case bool:
			begin()
			emit(strconv.FormatBool(t))
		case nil:
			begin()
		}
	}
	if err := b.Err(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// maxXMLDepth bounds the nesting of a DOCX part: encoding/xml keeps a
// record per open element, and Word nests a few dozen levels.
const maxXMLDepth = 1_000

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// zipDirSignature starts every entry of a zip archive's central directory.
var zipDirSignature = []byte("PK\x01\x02")

func loadDOCX(ctx context.Context, data []byte, budget int, l Limits) (string, error) {
	// archive/zip reads the whole directory into memory: count its entries
	// (over-counting, never under) before it does.
	if n := bytes.Count(data, zipDirSignature); n > l.MaxZipEntries {
		return "", tooLarge("the archive has more than %d entries (MaxZipEntries)", l.MaxZipEntries)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("corrupt DOCX (not a zip archive): %v", err)
	}
	if len(zr.File) > l.MaxZipEntries {
		return "", tooLarge("the archive has more than %d entries (MaxZipEntries)", l.MaxZipEntries)
	}
	var doc *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			doc = f
		}
	}
	if doc == nil {
		return "", fmt.Errorf("corrupt DOCX: no word/document.xml")
	}
	inflated := func() error {
		return tooLarge("word/document.xml decompresses to more than %d bytes (MaxInflatedBytes)", l.MaxInflatedBytes)
	}
	if doc.UncompressedSize64 > uint64(l.MaxInflatedBytes) {
		return "", inflated()
	}
	rc, err := doc.Open()
	if err != nil {
		return "", fmt.Errorf("corrupt DOCX: %v", err)
	}
	defer rc.Close()
	cr := &countingReader{r: io.LimitReader(rc, int64(l.MaxInflatedBytes)+1)}
	dec := xml.NewDecoder(cr)
	b := newTextBuf(budget)
	p := pace{ctx: ctx}
	inText := false
	depth := 0
	for {
		if err := p.check(); err != nil {
			return "", err
		}
		if err := b.Err(); err != nil {
			return "", err
		}
		tok, err := dec.Token()
		if cr.n > l.MaxInflatedBytes {
			return "", inflated()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("corrupt DOCX: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth++; depth > maxXMLDepth {
				return "", fmt.Errorf("corrupt DOCX: elements nested deeper than %d levels", maxXMLDepth)
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				b.WriteString("\t")
			case "br", "cr":
				b.WriteString("\n")
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				b.WriteString("\n\n")
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
	}
	if err := b.Err(); err != nil {
		return "", err
	}
	return collapseLines(b.String()), nil
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func strconvItoa(n int) string { return strconv.Itoa(n) }
