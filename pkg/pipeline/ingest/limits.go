package ingest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Limits bound what one document may cost to load and index. A document
// that exceeds one fails alone, with an ETOOLARGE error that names the
// limit and its value; the zero value of a field means its default.
//
// The defaults are generous for real documents and strict for bombs:
// plain text, Markdown and HTML give at most about one byte of text per byte
// of file; PDF and DOCX give a few (their text is compressed, beside fonts,
// images and markup); flattened JSON gives up to about twenty for deeply
// nested, short values. Compression bombs give hundreds to a thousand
// (deflate's ceiling is about 1032:1): a 22 KB DOCX once expanded to 10,487
// memories (~470 bytes of text per byte of file).
type Limits struct {
	// MaxBytes bounds the file (default 25 MiB, as the object store reads).
	MaxBytes int
	// MaxTextBytes bounds the extracted text, in bytes of UTF-8 (default
	// 20 MiB: about ten thousand pages of prose).
	MaxTextBytes int
	// MaxExpansion bounds the extracted text per byte of file (default 50).
	// The first MinTextAllowance bytes of text are always allowed, so that a
	// tiny file with a high ratio (a 40-byte JSON) is not refused.
	MaxExpansion int
	// MaxFragments bounds the fragments, hence the embeddings and memories,
	// of a document (default 10,000: about 8 MB of text at the default
	// splitter, a 3,000-page book).
	MaxFragments int
	// MaxPDFPages bounds the pages of a PDF (default 5,000).
	MaxPDFPages int
	// MaxZipEntries bounds the entries of a DOCX archive (default 5,000; Word
	// writes a few dozen, a few hundred with many images).
	MaxZipEntries int
	// MaxInflatedBytes bounds the bytes decompressed from a document: the
	// DOCX text part, the PDF content streams, fonts' character maps and
	// object streams (default 128 MiB).
	MaxInflatedBytes int
	// Timeout bounds the loading of one document (default 1 minute).
	Timeout time.Duration
}

// Default limits; see Limits.
const (
	DefaultMaxBytes         = 25 << 20
	DefaultMaxTextBytes     = 20 << 20
	DefaultMaxExpansion     = 50
	DefaultMaxFragments     = 10_000
	DefaultMaxPDFPages      = 5_000
	DefaultMaxZipEntries    = 5_000
	DefaultMaxInflatedBytes = 128 << 20
	DefaultTimeout          = time.Minute
	// MinTextAllowance is the text every document may produce whatever
	// its expansion ratio.
	MinTextAllowance = 64 << 10
)

// DefaultLimits are the limits of the zero Limits.
var DefaultLimits = Limits{
	MaxBytes: DefaultMaxBytes, MaxTextBytes: DefaultMaxTextBytes, MaxExpansion: DefaultMaxExpansion,
	MaxFragments: DefaultMaxFragments, MaxPDFPages: DefaultMaxPDFPages, MaxZipEntries: DefaultMaxZipEntries,
	MaxInflatedBytes: DefaultMaxInflatedBytes, Timeout: DefaultTimeout,
}

// withDefaults fills the zero (or negative) fields with their defaults.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxBytes, DefaultMaxBytes)
	def(&l.MaxTextBytes, DefaultMaxTextBytes)
	def(&l.MaxExpansion, DefaultMaxExpansion)
	def(&l.MaxFragments, DefaultMaxFragments)
	def(&l.MaxPDFPages, DefaultMaxPDFPages)
	def(&l.MaxZipEntries, DefaultMaxZipEntries)
	def(&l.MaxInflatedBytes, DefaultMaxInflatedBytes)
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return l
}

// textBudget is the most text a file of n bytes may give, and the limit
// that sets it.
func (l Limits) textBudget(n int) (int, string) {
	ratio := l.MaxExpansion * n
	if ratio/l.MaxExpansion != n { // overflow
		ratio = l.MaxTextBytes
	}
	switch {
	case max(ratio, MinTextAllowance) >= l.MaxTextBytes:
		return l.MaxTextBytes, fmt.Sprintf("the limit of %d bytes of text (MaxTextBytes)", l.MaxTextBytes)
	case ratio < MinTextAllowance:
		return MinTextAllowance, fmt.Sprintf("the allowance of %d bytes of text (MinTextAllowance)", MinTextAllowance)
	}
	return ratio, fmt.Sprintf("%d bytes of text, %d times the file's %d bytes (MaxExpansion)", ratio, l.MaxExpansion, n)
}

// Split cuts text with s and fails with ETOOLARGE, naming the document,
// when it gives more than MaxFragments fragments.
func (l Limits) Split(name string, s Splitter, text string) ([]Chunk, error) {
	l = l.withDefaults()
	chunks := s.split(text, l.MaxFragments+1)
	if len(chunks) > l.MaxFragments {
		return nil, memory.Errorf(memory.ETOOLARGE, "%s: more than %d fragments (MaxFragments)", name, l.MaxFragments)
	}
	return chunks, nil
}

// errOverBudget stops a loader whose text went over its budget.
var errOverBudget = errors.New("text over budget")

// limitError is a document-level limit that was reached; Load turns it
// into ETOOLARGE naming the document.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

func tooLarge(format string, args ...any) error {
	return &limitError{msg: fmt.Sprintf(format, args...)}
}

// textBuf accumulates extracted text up to a budget; past it, writes are
// dropped and Err reports errOverBudget, so that no loader holds more text
// than its budget.
type textBuf struct {
	b   strings.Builder
	max int
	err error
}

func newTextBuf(max int) *textBuf { return &textBuf{max: max} }

// WriteString appends s, or sets errOverBudget if it does not fit.
func (t *textBuf) WriteString(s string) {
	if t.err != nil {
		return
	}
	if t.b.Len()+len(s) > t.max {
		t.err = errOverBudget
		return
	}
	t.b.WriteString(s)
}

// Write appends b, as WriteString.
func (t *textBuf) Write(b []byte) {
	if t.err != nil {
		return
	}
	if t.b.Len()+len(b) > t.max {
		t.err = errOverBudget
		return
	}
	t.b.Write(b)
}

// Err is errOverBudget once a write did not fit.
func (t *textBuf) Err() error { return t.err }

func (t *textBuf) String() string { return t.b.String() }

func (t *textBuf) Len() int { return t.b.Len() }
