package ingest

import (
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Structural bounds of a PDF, beyond the Limits: no real file comes near
// them, and past them the library would loop or allocate without bound.
const (
	// pdfMaxObjects bounds the object numbers of the cross-reference
	// table, which the library allocates up front (32 bytes each).
	pdfMaxObjects = 1 << 20
	// pdfMaxXrefSections bounds the /Prev chain of cross-reference
	// sections (one per incremental update).
	pdfMaxXrefSections = 256
	// pdfMaxObjStmObjects bounds /N of an object stream: the library
	// reads N pairs on every lookup, even past the end of the data.
	pdfMaxObjStmObjects = 1 << 16
	// pdfMaxObjStmBytes bounds an object stream, decompressed: the
	// library decompresses it again on every lookup of an object in it.
	pdfMaxObjStmBytes = 8 << 20
	// pdfMaxEncryptedObjStm bounds the compressed length of an object
	// stream of an encrypted file, whose decompressed size cannot be
	// measured without decrypting it.
	pdfMaxEncryptedObjStm = 1 << 20
	// pdfMaxExtends bounds the /Extends chain of object streams.
	pdfMaxExtends = 16
	// pdfMaxColumns bounds the /Columns of a PNG predictor, which the
	// library allocates.
	pdfMaxColumns = 1 << 16
	// pdfMaxTreeDepth bounds the depth of the page tree.
	pdfMaxTreeDepth = 64
	// pdfMaxOperands bounds the operands before an operator in a content
	// stream: the library keeps them all on its stack.
	pdfMaxOperands = 1 << 16
	// pdfMaxCMapBytes bounds a font's ToUnicode character map.
	pdfMaxCMapBytes = 1 << 20
	// pdfMaxCMapEntries bounds the mappings of a character map: the
	// library appends as many as each block claims, read or not, and
	// scans them all for every character.
	pdfMaxCMapEntries = 1 << 16
	// pdfMaxCMapString bounds a string in a character map, the text one
	// character code may expand to.
	pdfMaxCMapString = 512
	// pdfMaxCMapBegins bounds the dictionaries a character map opens: the
	// library looks every word up in each.
	pdfMaxCMapBegins = 64
)

// xrefEntry is an entry of the library's cross-reference table.
type xrefEntry struct {
	ref      pdfRef // zero: unset
	inStream bool
	stream   pdfRef
	offset   int64
}

// pdfFile is what the structural check learnt of a file.
type pdfFile struct {
	data      []byte
	table     map[uint32]xrefEntry
	trailer   pdfDict
	encrypted bool
	inflated  int // bytes decompressed by the check
	maxInflat int
	objects   map[pdfRef]any // parsed objects, by reference
}

// checkPDF verifies, before the library reads data, the structures the
// library follows without bounds: the cross-reference sections and their
// /Prev chain, the object streams (their /N, /Extends chains, sizes, and
// that resolving one never needs another), and the predictors it
// allocates for. It reads the file as the library does (the same trailer
// search, the same lexer) so that both see the same structure. A hazard is
// an error that names it; a file the library would reject anyway may pass.
func checkPDF(data []byte, maxInflated int) (f *pdfFile, err error) {
	defer func() {
		switch p := recover().(type) {
		case nil:
		case pdfSyntaxError:
			err = fmt.Errorf("corrupt PDF: %v", p.msg)
		case pdfHazard:
			err = fmt.Errorf("corrupt PDF: %v", p.msg)
		case *limitError:
			err = p
		default:
			panic(p)
		}
	}()
	f = &pdfFile{data: data, table: map[uint32]xrefEntry{}, maxInflat: maxInflated, objects: map[pdfRef]any{}}
	if len(data) < 10 || !bytes.HasPrefix(data, []byte("%PDF-1.")) || data[7] < '0' || data[7] > '7' || data[8] != '\r' && data[8] != '\n' {
		return nil, fmt.Errorf("corrupt PDF: not a PDF file: invalid header")
	}
	const endChunk = 100
	if len(data) < endChunk {
		return nil, fmt.Errorf("corrupt PDF: not a PDF file: missing %%%%EOF")
	}
	buf := bytes.TrimRight(data[len(data)-endChunk:], "\r\n\t ")
	if !bytes.HasSuffix(buf, []byte("%%EOF")) {
		return nil, fmt.Errorf("corrupt PDF: not a PDF file: missing %%%%EOF")
	}
	i := pdfFindLastLine(buf, "startxref")
	if i < 0 {
		return nil, fmt.Errorf("corrupt PDF: missing final startxref")
	}
	lx := newPDFLexer(data, len(data)-endChunk+i, false)
	if lx.readToken() != pdfKeyword("startxref") {
		return nil, fmt.Errorf("corrupt PDF: missing startxref")
	}
	start, ok := lx.readToken().(int64)
	if !ok {
		return nil, fmt.Errorf("corrupt PDF: startxref not followed by integer")
	}
	if err := f.readXref(start); err != nil {
		return nil, err
	}
	f.encrypted = f.trailer["Encrypt"] != nil
	if err := f.checkObjectStreams(); err != nil {
		return nil, err
	}
	return f, nil
}

// pdfFindLastLine is the library's findLastLine.
func pdfFindLastLine(buf []byte, s string) int {
	bs := []byte(s)
	max := len(buf)
	for {
		i := bytes.LastIndex(buf[:max], bs)
		if i <= 0 || i+len(bs) >= len(buf) {
			return -1
		}
		if (buf[i-1] == '\n' || buf[i-1] == '\r') && (buf[i+len(bs)] == '\n' || buf[i+len(bs)] == '\r') {
			return i
		}
		max = i
	}
}

func (f *pdfFile) lexer(off int64) *pdfLexer {
	if off < 0 || off >= int64(len(f.data)) {
		panic(pdfSyntaxError{fmt.Sprintf("offset %d outside the file", off)})
	}
	return newPDFLexer(f.data, int(off), false)
}

// prevChain follows /Prev from first: it must not loop, nor be longer than
// pdfMaxXrefSections.
type prevChain map[int64]bool

func (c prevChain) next(prev any) int64 {
	off, ok := prev.(int64)
	if !ok {
		panic(pdfSyntaxError{fmt.Sprintf("xref Prev is not an integer: %v", prev)})
	}
	if c[off] {
		panic(pdfHazard{fmt.Sprintf("the cross-reference sections loop: /Prev %d points back to a section already read", off)})
	}
	if len(c) >= pdfMaxXrefSections {
		panic(pdfHazard{fmt.Sprintf("more than %d cross-reference sections", pdfMaxXrefSections)})
	}
	c[off] = true
	return off
}

func (f *pdfFile) readXref(start int64) error {
	chain := prevChain{start: true}
	lx := f.lexer(start)
	tok := lx.readToken()
	if tok == pdfKeyword("xref") {
		f.readXrefTableData(lx)
		trailer, ok := lx.readObject().(pdfDict)
		if !ok {
			return fmt.Errorf("corrupt PDF: xref table not followed by trailer dictionary")
		}
		for prev := trailer["Prev"]; prev != nil; {
			lx := f.lexer(chain.next(prev))
			if lx.readToken() != pdfKeyword("xref") {
				return fmt.Errorf("corrupt PDF: xref Prev does not point to xref")
			}
			f.readXrefTableData(lx)
			t, ok := lx.readObject().(pdfDict)
			if !ok {
				return fmt.Errorf("corrupt PDF: xref Prev table not followed by trailer dictionary")
			}
			prev = t["Prev"]
		}
		size, ok := trailer["Size"].(int64)
		if !ok {
			return fmt.Errorf("corrupt PDF: trailer missing /Size entry")
		}
		for id := range f.table {
			if int64(id) >= size {
				delete(f.table, id)
			}
		}
		f.trailer = trailer
		return nil
	}
	if _, ok := tok.(int64); !ok {
		return fmt.Errorf("corrupt PDF: cross-reference table not found")
	}
	lx.unreadToken(tok)
	strm, err := xrefStream(lx.readObject())
	if err != nil {
		return err
	}
	size, ok := strm.hdr["Size"].(int64)
	if !ok {
		return fmt.Errorf("corrupt PDF: xref stream missing Size")
	}
	if size < 0 || size > pdfMaxObjects {
		return pdfTooManyObjects(size)
	}
	f.readXrefStreamData(strm, size)
	for prev := strm.hdr["Prev"]; prev != nil; {
		lx := f.lexer(chain.next(prev))
		ps, err := xrefStream(lx.readObject())
		if err != nil {
			return err
		}
		psize, _ := ps.hdr["Size"].(int64) // a reference resolves to null here
		if psize > size {
			return fmt.Errorf("corrupt PDF: xref prev stream larger than last stream")
		}
		f.readXrefStreamData(ps, psize)
		prev = ps.hdr["Prev"]
	}
	f.trailer = strm.hdr
	return nil
}

func pdfTooManyObjects(n int64) error {
	return fmt.Errorf("corrupt PDF: the cross-reference table claims %d objects (at most %d are read)", n, pdfMaxObjects)
}

func xrefStream(obj any) (*pdfStream, error) {
	def, ok := obj.(pdfObjdef)
	if !ok {
		return nil, fmt.Errorf("corrupt PDF: cross-reference table not found")
	}
	strm, ok := def.obj.(*pdfStream)
	if !ok {
		return nil, fmt.Errorf("corrupt PDF: cross-reference stream not found")
	}
	if strm.hdr["Type"] != pdfName("XRef") {
		return nil, fmt.Errorf("corrupt PDF: xref stream does not have type XRef")
	}
	return strm, nil
}

// readXrefTableData reads the subsections of a classic table, up to the
// trailer keyword, as the library's readXrefTableData.
func (f *pdfFile) readXrefTableData(lx *pdfLexer) {
	for {
		tok := lx.readToken()
		if tok == pdfKeyword("trailer") {
			return
		}
		start, ok1 := tok.(int64)
		n, ok2 := lx.readToken().(int64)
		if !ok1 || !ok2 || start < 0 {
			lx.errorf("malformed xref table")
		}
		if n > 0 && start+n > pdfMaxObjects {
			panic(pdfHazard{pdfTooManyObjects(start + n).Error()[len("corrupt PDF: "):]})
		}
		for i := int64(0); i < n; i++ {
			off, ok1 := lx.readToken().(int64)
			gen, ok2 := lx.readToken().(int64)
			alloc, ok3 := lx.readToken().(pdfKeyword)
			if !ok1 || !ok2 || !ok3 || alloc != "f" && alloc != "n" {
				lx.errorf("malformed xref table")
			}
			x := uint32(start + i)
			if alloc == "n" && f.table[x].offset == 0 {
				f.table[x] = xrefEntry{ref: pdfRef{x, uint16(gen)}, offset: off}
			}
		}
	}
}

// readXrefStreamData reads the entries of a cross-reference stream, as
// the library's readXrefStreamData.
func (f *pdfFile) readXrefStreamData(strm *pdfStream, size int64) {
	index, _ := strm.hdr["Index"].(pdfArray)
	if index == nil {
		index = pdfArray{int64(0), size}
	}
	if len(index)%2 != 0 {
		panic(pdfSyntaxError{"invalid Index array"})
	}
	ww, ok := strm.hdr["W"].(pdfArray)
	if !ok || len(ww) < 3 || len(ww) > 16 {
		panic(pdfSyntaxError{"invalid W array"})
	}
	var w []int
	wtotal := 0
	for _, x := range ww {
		i, ok := x.(int64)
		if !ok || i < 0 || i > 8 {
			panic(pdfSyntaxError{"invalid W array"})
		}
		w = append(w, int(i))
		wtotal += int(i)
	}
	total := int64(0)
	for i := 0; i < len(index); i += 2 {
		start, ok1 := index[i].(int64)
		n, ok2 := index[i+1].(int64)
		if !ok1 || !ok2 {
			panic(pdfSyntaxError{"malformed Index pair"})
		}
		if start < 0 || n > 0 && start+n > pdfMaxObjects {
			panic(pdfHazard{fmt.Sprintf("the cross-reference stream claims objects %d to %d (at most %d are read)", start, start+n, pdfMaxObjects)})
		}
		total += max(n, 0)
	}
	// Before the table exists, the library resolves every reference in
	// the stream's dictionary to null.
	data, _ := f.decode(strm, nullRefs, int(total)*wtotal)
	for len(index) > 0 {
		start, n := index[0].(int64), index[1].(int64)
		index = index[2:]
		for i := int64(0); i < n; i++ {
			if len(data) < wtotal {
				panic(pdfSyntaxError{"error reading xref stream: unexpected EOF"})
			}
			row := data[:wtotal]
			data = data[wtotal:]
			v1 := pdfDecodeInt(row[0:w[0]])
			if w[0] == 0 {
				v1 = 1
			}
			v2 := pdfDecodeInt(row[w[0] : w[0]+w[1]])
			v3 := pdfDecodeInt(row[w[0]+w[1] : w[0]+w[1]+w[2]])
			x := uint32(start + i)
			if f.table[x].ref != (pdfRef{}) {
				continue
			}
			switch v1 {
			case 0:
				f.table[x] = xrefEntry{ref: pdfRef{0, 65535}}
			case 1:
				f.table[x] = xrefEntry{ref: pdfRef{x, uint16(v3)}, offset: int64(v2)}
			case 2:
				f.table[x] = xrefEntry{ref: pdfRef{x, 0}, inStream: true, stream: pdfRef{uint32(v2), 0}, offset: int64(v3)}
			}
		}
	}
}

// nullRefs resolves references to null, as the library does before its
// cross-reference table exists.
func nullRefs(x any) any {
	if _, ok := x.(pdfRef); ok {
		return nil
	}
	return x
}

func pdfDecodeInt(b []byte) int {
	x := 0
	for _, c := range b {
		x = x<<8 | int(c)
	}
	return x
}

// decode returns up to n+1 bytes of a stream's data, decoded as the
// library's Value.Reader decodes it (resolving its dictionary's references
// with resolve), and the error that ended the reading early, if any.
// Filters the library does not know fail; a PNG predictor must have sane
// columns.
func (f *pdfFile) decode(s *pdfStream, resolve func(any) any, n int) ([]byte, error) {
	length, _ := resolve(s.hdr["Length"]).(int64)
	if length <= 0 || n <= 0 {
		return nil, nil
	}
	end := min(int64(len(f.data)), int64(s.off)+length)
	if int64(s.off) >= end {
		return nil, nil
	}
	var rd io.Reader = bytes.NewReader(f.data[s.off:end])
	filter, param := resolve(s.hdr["Filter"]), resolve(s.hdr["DecodeParms"])
	switch x := filter.(type) {
	case nil:
	case pdfName:
		rd = pdfFilter(rd, x, param, resolve)
	case pdfArray:
		params, _ := param.(pdfArray)
		for i := range x {
			name, _ := resolve(x[i]).(pdfName)
			var p any
			if i < len(params) {
				p = resolve(params[i])
			}
			rd = pdfFilter(rd, name, p, resolve)
		}
	default:
		panic(pdfSyntaxError{fmt.Sprintf("unsupported filter %v", filter)})
	}
	out, err := io.ReadAll(io.LimitReader(rd, int64(n)+1))
	f.inflated += len(out)
	if f.inflated > f.maxInflat {
		panic(tooLarge("its streams decompress to more than %d bytes (MaxInflatedBytes)", f.maxInflat))
	}
	return out, err
}

// pdfFilter is the library's applyFilter, with its predictor checked.
func pdfFilter(rd io.Reader, name pdfName, param any, resolve func(any) any) io.Reader {
	dict, isDict := param.(pdfDict)
	if s, ok := param.(*pdfStream); ok {
		dict, isDict = s.hdr, true
	}
	switch name {
	case "FlateDecode":
		zr, err := zlib.NewReader(rd)
		if err != nil {
			panic(pdfSyntaxError{err.Error()})
		}
		pred := resolve(dict["Predictor"])
		if pred == nil {
			return zr
		}
		columns, _ := resolve(dict["Columns"]).(int64)
		if p, _ := pred.(int64); p != 12 {
			panic(pdfSyntaxError{"unsupported predictor"})
		}
		if columns < 0 || columns > pdfMaxColumns {
			panic(pdfHazard{fmt.Sprintf("a predictor with %d columns", columns)})
		}
		return &pngUpReader{r: zr, hist: make([]byte, 1+columns), tmp: make([]byte, 1+columns)}
	case "ASCII85Decode":
		if isDict {
			panic(pdfSyntaxError{"not expected DecodeParms for ascii85"})
		}
		return ascii85.NewDecoder(&alphaReader{r: rd})
	}
	panic(pdfSyntaxError{fmt.Sprintf("unknown filter %s", name)})
}

// pngUpReader is the library's PNG "Up" predictor decoder.
type pngUpReader struct {
	r         io.Reader
	hist, tmp []byte
	pend      []byte
}

func (r *pngUpReader) Read(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		if len(r.pend) > 0 {
			m := copy(b, r.pend)
			n += m
			b = b[m:]
			r.pend = r.pend[m:]
			continue
		}
		if len(r.tmp) == 1 { // no columns: rows without data, nothing to read
			return n, io.EOF
		}
		if _, err := io.ReadFull(r.r, r.tmp); err != nil {
			return n, err
		}
		if r.tmp[0] != 2 {
			return n, errors.New("malformed PNG-Up encoding")
		}
		for i, c := range r.tmp {
			r.hist[i] += c
		}
		r.pend = r.hist[1:]
	}
	return n, nil
}

// alphaReader keeps the ASCII85 characters of a stream, up to "~".
type alphaReader struct {
	r   io.Reader
	eod bool
}

func (a *alphaReader) Read(p []byte) (int, error) {
	if a.eod {
		return 0, io.EOF
	}
	n, err := a.r.Read(p)
	out := 0
	for i := 0; i < n; i++ {
		c := p[i]
		if c == '~' {
			a.eod = true
			return out, io.EOF
		}
		if c >= '!' && c <= 'u' || c == 'z' {
			p[out] = c
			out++
		}
	}
	return out, err
}

// object returns the object ref names in the final table, parsed from the
// file, or nil where the library's resolve gives null. Resolving an
// object that lives in an object stream is refused: the checks below only
// ever need objects the library reads straight from the file.
func (f *pdfFile) object(ref pdfRef) any {
	if obj, ok := f.objects[ref]; ok {
		return obj
	}
	e, ok := f.table[ref.id]
	if !ok || e.ref != ref || !e.inStream && e.offset == 0 {
		return nil
	}
	if e.inStream {
		panic(pdfHazard{fmt.Sprintf("object %d, which an object stream's dictionary needs, is itself in an object stream", ref.id)})
	}
	f.objects[ref] = nil // a reference back to an object being parsed is null
	def, ok := f.lexer(e.offset).readObject().(pdfObjdef)
	if !ok || def.ref != ref {
		panic(pdfSyntaxError{fmt.Sprintf("loading object %d: no such object at offset %d", ref.id, e.offset)})
	}
	f.objects[ref] = def.obj
	return def.obj
}

// resolve follows a reference (to an object outside object streams).
func (f *pdfFile) resolve(x any) any {
	if ref, ok := x.(pdfRef); ok {
		return f.object(ref)
	}
	return x
}

// noCompressed verifies that nothing reachable from x through references
// lives in an object stream: resolving an object stream's own entries
// must never need an object stream (the library would recurse without
// end).
func (f *pdfFile) noCompressed(x any, seen map[pdfRef]bool, depth int) {
	if depth > pdfMaxObjectDepth || len(seen) > 10_000 {
		panic(pdfHazard{"an object stream's dictionary is too deep"})
	}
	switch v := x.(type) {
	case pdfRef:
		if seen[v] {
			return
		}
		seen[v] = true
		f.noCompressed(f.object(v), seen, depth+1)
	case pdfArray:
		for _, e := range v {
			f.noCompressed(e, seen, depth+1)
		}
	case pdfDict:
		for _, e := range v {
			f.noCompressed(e, seen, depth+1)
		}
	case *pdfStream:
		f.noCompressed(v.hdr, seen, depth+1)
	}
}

// checkObjectStreams verifies every object stream the table points into.
func (f *pdfFile) checkObjectStreams() error {
	checked := map[uint32]bool{}
	ids := make([]uint32, 0, len(f.table))
	for id := range f.table {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the first problem found is the same every time
	for _, id := range ids {
		e := f.table[id]
		if !e.inStream || checked[e.stream.id] {
			continue
		}
		checked[e.stream.id] = true
		s, ok := f.object(e.stream).(*pdfStream)
		if !ok {
			continue // the library fails cleanly: not a stream
		}
		seen := map[pdfRef]bool{e.stream: true}
		for n := 0; s != nil; n++ {
			if n == pdfMaxExtends {
				return fmt.Errorf("corrupt PDF: object stream %d extends more than %d others", e.stream.id, pdfMaxExtends)
			}
			next, err := f.checkObjectStream(e.stream.id, s, seen)
			if err != nil {
				return err
			}
			s = next
		}
	}
	return nil
}

// checkObjectStream checks one object stream and returns the one it
// extends, if any.
func (f *pdfFile) checkObjectStream(id uint32, s *pdfStream, seen map[pdfRef]bool) (*pdfStream, error) {
	f.noCompressed(s.hdr, map[pdfRef]bool{}, 0)
	if f.resolve(s.hdr["Type"]) != pdfName("ObjStm") {
		return nil, nil // the library fails cleanly: not an object stream
	}
	if n, _ := f.resolve(s.hdr["N"]).(int64); n > pdfMaxObjStmObjects {
		return nil, fmt.Errorf("corrupt PDF: object stream %d claims %d objects (at most %d)", id, n, pdfMaxObjStmObjects)
	}
	if f.encrypted {
		if n, _ := f.resolve(s.hdr["Length"]).(int64); n > pdfMaxEncryptedObjStm {
			return nil, fmt.Errorf("corrupt PDF: object stream %d of an encrypted file is %d bytes (at most %d)", id, n, pdfMaxEncryptedObjStm)
		}
	} else if data, _ := f.decode(s, f.resolve, pdfMaxObjStmBytes); len(data) > pdfMaxObjStmBytes {
		// A read error is the library's to report, if it reaches that far.
		return nil, tooLarge("object stream %d decompresses to more than %d bytes", id, pdfMaxObjStmBytes)
	}
	ext := s.hdr["Extends"]
	ref, isRef := ext.(pdfRef)
	if isRef {
		if seen[ref] {
			return nil, fmt.Errorf("corrupt PDF: object stream %d: the /Extends chain loops", id)
		}
		seen[ref] = true
	}
	next, _ := f.resolve(ext).(*pdfStream)
	return next, nil
}

// psRules selects what scanPS checks: a content stream (operands between
// operators) or a character map (its blocks and strings).
type psRules int

const (
	psContent psRules = iota
	psCMap
)

// scanPS reads a content stream or a character map as the library's
// Interpret will, and fails on what would make it loop for ever or grow
// without bound: an unterminated hex string at the end, too many operands
// before an operator, in a character map blocks that claim too many
// mappings, too long strings or too many dictionaries.
func scanPS(data []byte, rules psRules) (err error) {
	defer func() {
		switch p := recover().(type) {
		case nil:
		case pdfHazard:
			err = p
		case pdfSyntaxError:
			// The library stops interpreting here too.
			err = nil
		default:
			panic(p)
		}
	}()
	lx := newPDFLexer(data, 0, true)
	operands := 0
	// conservative: after "begin", names may be defined, and a defined
	// name pushes instead of operating: every token then counts.
	conservative := false
	begins := 0
	var last any // the last operand pushed
	n, entries := int64(-1), int64(0)
	for {
		tok := lx.readToken()
		if tok == (pdfEOF{}) {
			return nil
		}
		if kw, ok := tok.(pdfKeyword); ok && kw != "null" && kw != "[" && kw != "]" && kw != "<<" && kw != ">>" {
			switch kw {
			case "dict", "currentdict", "def", "pop", "end":
				operands++ // the library's own stack operators: count, never reset
			case "begin":
				operands++
				conservative = true
				if begins++; rules == psCMap && begins > pdfMaxCMapBegins {
					panic(pdfHazard{fmt.Sprintf("a character map opens more than %d dictionaries", pdfMaxCMapBegins)})
				}
			default:
				if rules == psCMap {
					switch kw {
					case "begincodespacerange", "beginbfchar", "beginbfrange":
						v, ok := last.(int64)
						if !ok || v < 0 || v > pdfMaxCMapEntries {
							panic(pdfHazard{fmt.Sprintf("a character map's %s does not follow a count up to %d", kw, pdfMaxCMapEntries)})
						}
						n = v
					case "endcodespacerange":
						entries += max(n, 0)
						n = -1
					case "endbfchar", "endbfrange":
						entries += max(n, 0)
					}
					if entries > pdfMaxCMapEntries {
						panic(pdfHazard{fmt.Sprintf("a character map with more than %d mappings", pdfMaxCMapEntries)})
					}
				}
				if !conservative && rules == psContent {
					operands = 0
				}
			}
			last = nil
		} else {
			lx.unreadToken(tok)
			before := lx.tokens
			last = readPSObject(lx, rules)
			operands += max(lx.tokens-before, 1)
		}
		if rules == psContent && operands > pdfMaxOperands {
			panic(pdfHazard{fmt.Sprintf("more than %d operands without an operator", pdfMaxOperands)})
		}
	}
}

// readPSObject reads an operand as the library's readObjectRecover: a
// syntax error drops the operand and the reading goes on.
func readPSObject(lx *pdfLexer, rules psRules) (obj any) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(pdfSyntaxError); !ok {
				panic(p)
			}
			obj = nil
		}
	}()
	obj = lx.readObject()
	if rules == psCMap {
		checkCMapStrings(obj, 0)
	}
	return obj
}

func checkCMapStrings(obj any, depth int) {
	switch v := obj.(type) {
	case pdfString:
		if v > pdfMaxCMapString {
			panic(pdfHazard{fmt.Sprintf("a character map string of %d bytes (at most %d)", v, pdfMaxCMapString)})
		}
	case pdfArray:
		for _, e := range v {
			checkCMapStrings(e, depth+1)
		}
	case pdfDict:
		for _, e := range v {
			checkCMapStrings(e, depth+1)
		}
	}
}
