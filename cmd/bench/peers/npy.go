package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// The corpus's matrices are NumPy .npy files (format version 1.0), which
// numpy.load reads as they are: little-endian float32 ('<f4') or int64
// ('<i8'), C order, the header padded so the data starts on a 64-byte
// boundary.

const npyMagic = "\x93NUMPY"

// npyWriter writes one 2-D .npy array row by row.
type npyWriter struct {
	w     *bufio.Writer
	f     *os.File
	cols  int
	rows  int // rows still expected
	descr string
	buf   []byte
}

// createNPY creates path holding a rows × cols array of descr ("<f4" or
// "<i8"); write every row, then Close.
func createNPY(path, descr string, rows, cols int) (*npyWriter, error) {
	if descr != "<f4" && descr != "<i8" {
		return nil, fmt.Errorf("npy: unsupported dtype %q", descr)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &npyWriter{w: bufio.NewWriterSize(f, 1<<20), f: f, cols: cols, rows: rows, descr: descr}
	if _, err := w.w.Write(npyHeader(descr, rows, cols)); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// npyHeader is the magic, version 1.0, and the header dictionary padded
// with spaces and a newline to a multiple of 64 bytes.
func npyHeader(descr string, rows, cols int) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", descr, rows, cols)
	total := len(npyMagic) + 2 + 2 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := []byte(npyMagic)
	h = append(h, 1, 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)+pad+1))
	h = append(h, dict...)
	h = append(h, strings.Repeat(" ", pad)...)
	return append(h, '\n')
}

// Float32s writes one row of a '<f4' array.
func (w *npyWriter) Float32s(row []float32) error {
	if w.descr != "<f4" || len(row) != w.cols {
		return fmt.Errorf("npy: row of %d float32, want %d %s", len(row), w.cols, w.descr)
	}
	w.buf = w.buf[:0]
	for _, x := range row {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, math.Float32bits(x))
	}
	return w.put()
}

// Int64s writes one row of a '<i8' array.
func (w *npyWriter) Int64s(row []int64) error {
	if w.descr != "<i8" || len(row) != w.cols {
		return fmt.Errorf("npy: row of %d int64, want %d %s", len(row), w.cols, w.descr)
	}
	w.buf = w.buf[:0]
	for _, x := range row {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(x))
	}
	return w.put()
}

func (w *npyWriter) put() error {
	if w.rows == 0 {
		return errors.New("npy: more rows than the shape holds")
	}
	w.rows--
	_, err := w.w.Write(w.buf)
	return err
}

// Close flushes the file; it fails when rows are missing.
func (w *npyWriter) Close() error {
	err := w.w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && w.rows != 0 {
		err = fmt.Errorf("npy: %d rows missing", w.rows)
	}
	return err
}

// npyReader reads a 2-D .npy array row by row.
type npyReader struct {
	r          *bufio.Reader
	f          io.Closer
	descr      string
	rows, cols int // the array's shape
	left       int // rows not read yet
	buf        []byte
}

// openNPY opens a 2-D little-endian .npy file of version 1.0 to 3.0.
func openNPY(path string) (*npyReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := readNPY(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.f = f
	return r, nil
}

// readNPY reads the header of the .npy stream in; the rows follow.
func readNPY(in io.Reader) (*npyReader, error) {
	r := bufio.NewReaderSize(in, 1<<20)
	pre := make([]byte, len(npyMagic)+2)
	if _, err := io.ReadFull(r, pre); err != nil {
		return nil, err
	}
	if string(pre[:len(npyMagic)]) != npyMagic {
		return nil, errors.New("npy: not a .npy file")
	}
	var hlen int
	switch pre[len(npyMagic)] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, err
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, err
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return nil, fmt.Errorf("npy: version %d", pre[len(npyMagic)])
	}
	h := make([]byte, hlen)
	if _, err := io.ReadFull(r, h); err != nil {
		return nil, err
	}
	descr, rows, cols, err := parseNPYHeader(string(h))
	if err != nil {
		return nil, err
	}
	return &npyReader{r: r, descr: descr, rows: rows, cols: cols, left: rows}, nil
}

// parseNPYHeader reads the dtype and the 2-D shape of a header dictionary
// such as {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
func parseNPYHeader(h string) (descr string, rows, cols int, err error) {
	field := func(name string) (string, bool) {
		i := strings.Index(h, "'"+name+"':")
		if i < 0 {
			return "", false
		}
		return strings.TrimSpace(h[i+len(name)+3:]), true
	}
	v, ok := field("descr")
	if !ok || len(v) < 2 || v[0] != '\'' {
		return "", 0, 0, fmt.Errorf("npy: no descr in %q", h)
	}
	descr = v[1 : 1+strings.IndexByte(v[1:], '\'')]
	if descr != "<f4" && descr != "<i8" {
		return "", 0, 0, fmt.Errorf("npy: unsupported dtype %q", descr)
	}
	if v, ok = field("fortran_order"); !ok || !strings.HasPrefix(v, "False") {
		return "", 0, 0, errors.New("npy: Fortran order is not supported")
	}
	if v, ok = field("shape"); !ok || !strings.HasPrefix(v, "(") || !strings.Contains(v, ")") {
		return "", 0, 0, fmt.Errorf("npy: no shape in %q", h)
	}
	dims := strings.Split(strings.TrimSuffix(strings.TrimSpace(v[1:strings.IndexByte(v, ')')]), ","), ",")
	if len(dims) != 2 {
		return "", 0, 0, fmt.Errorf("npy: shape %q is not 2-D", v)
	}
	if rows, err = strconv.Atoi(strings.TrimSpace(dims[0])); err == nil {
		cols, err = strconv.Atoi(strings.TrimSpace(dims[1]))
	}
	if err != nil {
		return "", 0, 0, fmt.Errorf("npy: shape %q: %w", v, err)
	}
	return descr, rows, cols, nil
}

// Float32s reads the next row of a '<f4' array into row (cols long).
func (r *npyReader) Float32s(row []float32) error {
	if r.descr != "<f4" || len(row) != r.cols {
		return fmt.Errorf("npy: %s array of %d columns read as %d float32", r.descr, r.cols, len(row))
	}
	if err := r.next(4); err != nil {
		return err
	}
	for i := range row {
		row[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.buf[4*i:]))
	}
	return nil
}

// Int64s reads the next row of a '<i8' array into row (cols long).
func (r *npyReader) Int64s(row []int64) error {
	if r.descr != "<i8" || len(row) != r.cols {
		return fmt.Errorf("npy: %s array of %d columns read as %d int64", r.descr, r.cols, len(row))
	}
	if err := r.next(8); err != nil {
		return err
	}
	for i := range row {
		row[i] = int64(binary.LittleEndian.Uint64(r.buf[8*i:]))
	}
	return nil
}

func (r *npyReader) next(size int) error {
	if r.left == 0 {
		return io.EOF
	}
	r.left--
	if cap(r.buf) < size*r.cols {
		r.buf = make([]byte, size*r.cols)
	}
	r.buf = r.buf[:size*r.cols]
	_, err := io.ReadFull(r.r, r.buf)
	return err
}

// Close closes the file.
func (r *npyReader) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}
