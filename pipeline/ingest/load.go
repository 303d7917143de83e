package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/memory"
	"github.com/ledongthuc/pdf"
	"golang.org/x/net/html"
)

// Formats lists the file extensions Load reads.
var Formats = []string{".txt", ".md", ".markdown", ".html", ".htm", ".json", ".pdf", ".docx"}

// Load extracts the text of a file, chosen by its extension. Unknown
// types, empty files and files that cannot be parsed are EINVALID with a
// reason that names the problem.
//
// Libraries: HTML with golang.org/x/net/html (the Go project's parser); PDF
// with github.com/ledongthuc/pdf (pure Go, text per page; its panics on
// broken files are recovered into errors); DOCX with the standard library
// (archive/zip and encoding/xml: the text is in word/document.xml's runs,
// and no dependency is needed for that); JSON with encoding/json.
func Load(name string, data []byte) (string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return "", memory.Errorf(memory.EINVALID, "%s: the file is empty", name)
	}
	var text string
	var err error
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".txt", ".md", ".markdown":
		if !utf8.Valid(data) {
			return "", memory.Errorf(memory.EINVALID, "%s: not UTF-8 text", name)
		}
		text = string(data)
	case ".html", ".htm":
		text, err = loadHTML(data)
	case ".json":
		text, err = loadJSON(data)
	case ".pdf":
		text, err = loadPDF(data)
	case ".docx":
		text, err = loadDOCX(data)
	default:
		return "", memory.Errorf(memory.EINVALID, "%s: unsupported file type %q (supported: %s)", name, ext, strings.Join(Formats, ", "))
	}
	if err != nil {
		return "", memory.Errorf(memory.EINVALID, "%s: %v", name, err)
	}
	if strings.TrimSpace(text) == "" {
		return "", memory.Errorf(memory.EINVALID, "%s: no text could be extracted", name)
	}
	return text, nil
}

// blocks are the HTML elements that end a line of text.
var blocks = map[string]bool{"p": true, "div": true, "br": true, "li": true, "tr": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "section": true, "article": true, "header": true, "footer": true,
	"blockquote": true, "pre": true, "table": true, "ul": true, "ol": true, "title": true}

func loadHTML(data []byte) (string, error) {
	z := html.NewTokenizer(bytes.NewReader(data))
	var b strings.Builder
	skip := 0
	for {
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

// loadJSON renders a JSON document as "path: value" lines, keys sorted, so
// that keys give words to search and values keep their context.
func loadJSON(data []byte) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("corrupt JSON: %v", err)
	}
	var b strings.Builder
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, x[k])
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", prefix, i), e)
			}
		case nil:
		default:
			if prefix != "" {
				b.WriteString(prefix + ": ")
			}
			fmt.Fprintf(&b, "%v\n", x)
		}
	}
	walk("", v)
	return b.String(), nil
}

func loadPDF(data []byte) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = "", fmt.Errorf("corrupt PDF: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("corrupt PDF: %v", err)
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if err != nil {
			return "", fmt.Errorf("corrupt PDF: page %d: %v", i, err)
		}
		b.WriteString(strings.TrimSpace(t))
		b.WriteString("\n\n")
	}
	return b.String(), nil
}

func loadDOCX(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("corrupt DOCX (not a zip archive): %v", err)
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
	rc, err := doc.Open()
	if err != nil {
		return "", fmt.Errorf("corrupt DOCX: %v", err)
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, 64<<20))
	var b strings.Builder
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("corrupt DOCX: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				b.WriteString("\t")
			case "br", "cr":
				b.WriteString("\n")
			}
		case xml.EndElement:
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
	return collapseLines(b.String()), nil
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func strconvItoa(n int) string { return fmt.Sprint(n) }
