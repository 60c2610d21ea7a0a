package parquet

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go/format"
)

// Type is a Parquet physical type, numbered as the format's Type enum.
// Its zero value is Boolean, whose columns carry no filter this package
// reads.
type Type int32

// The physical types of parquet.thrift.
const (
	Boolean           Type = 0
	Int32             Type = 1
	Int64             Type = 2
	Int96             Type = 3
	Float             Type = 4
	Double            Type = 5
	ByteArray         Type = 6
	FixedLenByteArray Type = 7
)

// String returns the type's name in parquet.thrift.
func (t Type) String() string {
	switch t {
	case Boolean:
		return "BOOLEAN"
	case Int32:
		return "INT32"
	case Int64:
		return "INT64"
	case Int96:
		return "INT96"
	case Float:
		return "FLOAT"
	case Double:
		return "DOUBLE"
	case ByteArray:
		return "BYTE_ARRAY"
	case FixedLenByteArray:
		return "FIXED_LEN_BYTE_ARRAY"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Plain returns the plain encoding of s read as a value of type t, the
// bytes an SBBF hashes: BYTE_ARRAY takes s's bytes; INT32 and INT64 a
// decimal integer (strconv.ParseInt) as 4 or 8 little-endian bytes; FLOAT
// and DOUBLE a number (strconv.ParseFloat) as the little-endian bits;
// FIXED_LEN_BYTE_ARRAY and INT96 (12 bytes) take s's bytes when there are
// exactly length of them, or else hex digits (an optional 0x, dashes
// ignored, so that a UUID may be written as usual) that decode to length
// bytes. BOOLEAN is refused: the spec defines no filter for it.
func Plain(t Type, length int, s string) ([]byte, error) {
	switch t {
	case ByteArray:
		return []byte(s), nil
	case Int32:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not an INT32", ErrConfig, s)
		}
		return binary.LittleEndian.AppendUint32(nil, uint32(v)), nil
	case Int64:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not an INT64", ErrConfig, s)
		}
		return binary.LittleEndian.AppendUint64(nil, uint64(v)), nil
	case Float:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not a FLOAT", ErrConfig, s)
		}
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(v))), nil
	case Double:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not a DOUBLE", ErrConfig, s)
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)), nil
	case FixedLenByteArray, Int96:
		if t == Int96 {
			length = 12
		}
		if len(s) == length {
			return []byte(s), nil
		}
		h := strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"), "-", "")
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != length {
			return nil, fmt.Errorf("%w: %q is neither %d bytes nor %d bytes in hex (%v)", ErrConfig, s, length, length, t)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%w: no bloom filter hash for %v values", ErrUnsupported, t)
}

// Chunk is a column chunk that carries a bloom filter.
//
// The zero Chunk names row group 0's unnamed BOOLEAN column, whose filter
// File.ReadFilter refuses to read.
type Chunk struct {
	RowGroup int    // index of the row group in the file
	Column   string // path in the schema, joined with "."
	Type     Type   // physical type of the column's values
	// TypeLength is the byte length of a FIXED_LEN_BYTE_ARRAY value, 0
	// for other types.
	TypeLength int
	NumValues  int64 // values in the chunk, nulls included
	// Offset is the file offset of the filter's header
	// (bloom_filter_offset), Length the header and bitset's length
	// (bloom_filter_length), 0 when the writer did not record it.
	Offset int64
	Length int32
}

// File is an open Parquet file: its footer decoded and the column chunks
// that carry a bloom filter listed.
//
// The zero File has no row groups and no filters; Probe on it refuses
// every column. Open one with OpenFile.
type File struct {
	r         io.ReaderAt
	size      int64
	rowGroups int
	columns   []string       // leaf paths, in schema order
	types     map[string]int // leaf path → index in columns
	leafType  []Type
	leafLen   []int
	chunks    []Chunk
}

// MaxFooterBytes bounds the thrift footer OpenFile reads: 64 MiB, far
// beyond the footers of real files (a few KB to a few MB).
const MaxFooterBytes = 64 << 20

// OpenFile reads the footer of the Parquet file of the given size that r
// reads, and lists its column chunks with a bloom filter. It checks the
// magic "PAR1" at both ends (an encrypted footer, "PARE", is
// ErrUnsupported) and the footer's length against the file, and decodes
// the footer with parquet-go's format package after a bounded walk.
func OpenFile(r io.ReaderAt, size int64) (*File, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: nil reader", ErrConfig)
	}
	if size < 12 {
		return nil, fmt.Errorf("%w: %d bytes, a Parquet file has at least 12", ErrCorrupt, size)
	}
	var head [4]byte
	var tail [8]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("parquet: reading the file's magic: %w", err)
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, fmt.Errorf("parquet: reading the footer's length: %w", err)
	}
	if string(tail[4:]) == "PARE" {
		return nil, fmt.Errorf("%w: encrypted footer (PARE)", ErrUnsupported)
	}
	if string(head[:]) != "PAR1" || string(tail[4:]) != "PAR1" {
		return nil, fmt.Errorf("%w: not a Parquet file (no PAR1 magic at both ends)", ErrCorrupt)
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n == 0 || n > size-12 || n > MaxFooterBytes {
		return nil, fmt.Errorf("%w: footer of %d bytes in a file of %d (at most %d)", ErrCorrupt, n, size, min(size-12, MaxFooterBytes))
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-8-n); err != nil {
		return nil, fmt.Errorf("parquet: reading the footer: %w", err)
	}
	var meta format.FileMetaData
	if _, err := decodeThrift(buf, &meta); err != nil {
		return nil, fmt.Errorf("%w: footer: %w", ErrCorrupt, err)
	}
	f := &File{r: r, size: size, rowGroups: len(meta.RowGroups), types: map[string]int{}}
	if err := f.leaves(meta.Schema); err != nil {
		return nil, err
	}
	for g, rg := range meta.RowGroups {
		for _, cc := range rg.Columns {
			md := &cc.MetaData
			if md.BloomFilterOffset <= 0 && md.BloomFilterLength <= 0 {
				continue
			}
			c := Chunk{
				RowGroup:  g,
				Column:    strings.Join(md.PathInSchema, "."),
				Type:      Type(md.Type),
				NumValues: md.NumValues,
				Offset:    md.BloomFilterOffset,
				Length:    md.BloomFilterLength,
			}
			if i, ok := f.types[c.Column]; ok && f.leafType[i] == c.Type {
				c.TypeLength = f.leafLen[i]
			}
			if c.Offset < 4 || c.Offset >= size || c.Length < 0 || int64(c.Length) > size-c.Offset {
				return nil, fmt.Errorf("%w: row group %d column %s: bloom filter at %d (%d bytes) outside the file of %d", ErrCorrupt, g, c.Column, c.Offset, c.Length, size)
			}
			f.chunks = append(f.chunks, c)
		}
	}
	return f, nil
}

// leaves records the leaf columns of the flattened schema tree (depth
// first; an element with num_children > 0 is a group).
func (f *File) leaves(schema []format.SchemaElement) error {
	if len(schema) == 0 {
		return fmt.Errorf("%w: footer without a schema", ErrCorrupt)
	}
	type frame struct {
		path string
		left int32
	}
	var stack []frame
	pos := 1
	stack = append(stack, frame{"", schema[0].NumChildren.V})
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.left <= 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		top.left--
		if pos >= len(schema) {
			return fmt.Errorf("%w: schema ends inside a group", ErrCorrupt)
		}
		e := &schema[pos]
		pos++
		path := e.Name
		if top.path != "" {
			path = top.path + "." + e.Name
		}
		if nc, ok := e.NumChildren.Get(); ok && nc > 0 {
			if len(stack) > maxThriftDepth {
				return fmt.Errorf("%w: schema nested deeper than %d", ErrCorrupt, maxThriftDepth)
			}
			stack = append(stack, frame{path, nc})
			continue
		}
		f.types[path] = len(f.columns)
		f.columns = append(f.columns, path)
		f.leafType = append(f.leafType, Type(e.Type.V))
		f.leafLen = append(f.leafLen, int(e.TypeLength.V))
	}
	return nil
}

// RowGroups returns the number of row groups in the file.
func (f *File) RowGroups() int { return f.rowGroups }

// Columns returns the paths of the file's leaf columns, joined with ".",
// in schema order.
func (f *File) Columns() []string { return append([]string(nil), f.columns...) }

// Filters returns the column chunks that carry a bloom filter, by row
// group, then column, as the footer lists them.
func (f *File) Filters() []Chunk { return append([]Chunk(nil), f.chunks...) }

// maxHeaderBytes is how much ReadFilter reads for a header whose length
// the footer does not give; a BloomFilterHeader takes some 15 bytes.
const maxHeaderBytes = 256

// ReadFilter reads and decodes the filter of a chunk that Filters listed.
// The header is read first and the bitset only once its size is checked
// against the file (and against bloom_filter_length when the writer
// recorded it).
func (f *File) ReadFilter(c Chunk) (*Filter, error) {
	if f.r == nil {
		return nil, fmt.Errorf("%w: the zero File has no filters", ErrConfig)
	}
	if c.Offset < 4 || c.Offset >= f.size {
		return nil, fmt.Errorf("%w: bloom filter offset %d outside the file of %d bytes", ErrCorrupt, c.Offset, f.size)
	}
	hn := min(int64(maxHeaderBytes), f.size-c.Offset)
	if c.Length > 0 {
		hn = min(hn, int64(c.Length))
	}
	buf := make([]byte, hn)
	if _, err := f.r.ReadAt(buf, c.Offset); err != nil && err != io.EOF {
		return nil, fmt.Errorf("parquet: row group %d column %s: reading the bloom filter header: %w", c.RowGroup, c.Column, err)
	}
	h, err := parseHeader(buf)
	if err != nil {
		return nil, fmt.Errorf("row group %d column %s: %w", c.RowGroup, c.Column, err)
	}
	end := c.Offset + int64(h.size) + int64(h.numBytes)
	if end > f.size || (c.Length > 0 && int64(h.size+h.numBytes) != int64(c.Length)) {
		return nil, fmt.Errorf("%w: row group %d column %s: bloom filter header and %d bytes at %d do not fit (length %d, file %d)", ErrCorrupt, c.RowGroup, c.Column, h.numBytes, c.Offset, c.Length, f.size)
	}
	bits := make([]byte, h.numBytes)
	if _, err := f.r.ReadAt(bits, c.Offset+int64(h.size)); err != nil && !(err == io.EOF && end == f.size) {
		return nil, fmt.Errorf("parquet: row group %d column %s: reading the bloom filter: %w", c.RowGroup, c.Column, err)
	}
	return FromBitset(bits)
}

// Report describes one chunk's filter, as `bloomcast inspect` lists it.
//
// The zero Report describes an empty filter of no bytes in the zero Chunk.
type Report struct {
	Chunk
	Bytes        int     // bitset size in bytes
	Fill         float64 // fraction of bits set
	EstimatedNDV float64 // Filter.EstimateNDV
}

// Reports reads every filter of the file and describes it.
func (f *File) Reports() ([]Report, error) {
	out := make([]Report, 0, len(f.chunks))
	for _, c := range f.chunks {
		flt, err := f.ReadFilter(c)
		if err != nil {
			return nil, err
		}
		out = append(out, Report{Chunk: c, Bytes: flt.Bytes(), Fill: flt.Fill(), EstimatedNDV: flt.EstimateNDV()})
	}
	return out, nil
}

// Answer is File.Probe's answer for one value.
//
// The zero Answer says that no row group may hold the empty value.
type Answer struct {
	Value string
	// RowGroups are the row groups that may hold the value, ascending:
	// those whose filter may hold it and those without a filter for the
	// column (which may hold anything).
	RowGroups []int
	// Unfiltered are the row groups among RowGroups that carry no filter
	// for the column.
	Unfiltered []int
}

// Probe answers, for each value (text parsed by Plain as the column's
// physical type), the row groups that may hold it. column is a path as
// Columns and Chunk.Column spell it. It reads each row group's filter
// once. An unknown column, a value that does not parse, or a filter that
// does not decode is an error.
func (f *File) Probe(column string, values []string) ([]Answer, error) {
	i, ok := f.types[column]
	if !ok {
		return nil, fmt.Errorf("%w: no column %q in the file (columns: %s)", ErrConfig, column, strings.Join(f.columns, ", "))
	}
	t, length := f.leafType[i], f.leafLen[i]
	hashes := make([]uint64, len(values))
	for j, v := range values {
		p, err := Plain(t, length, v)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", column, err)
		}
		hashes[j] = Hash(p)
	}
	filters := make([]*Filter, f.rowGroups)
	for _, c := range f.chunks {
		if c.Column != column {
			continue
		}
		flt, err := f.ReadFilter(c)
		if err != nil {
			return nil, err
		}
		filters[c.RowGroup] = flt
	}
	out := make([]Answer, len(values))
	for j, v := range values {
		a := Answer{Value: v, RowGroups: []int{}}
		for g, flt := range filters {
			switch {
			case flt == nil:
				a.RowGroups = append(a.RowGroups, g)
				a.Unfiltered = append(a.Unfiltered, g)
			case flt.CheckHash(hashes[j]):
				a.RowGroups = append(a.RowGroups, g)
			}
		}
		out[j] = a
	}
	return out, nil
}

// SniffFile reports whether prefix, the first bytes of a file, starts
// with Parquet's magic "PAR1".
func SniffFile(prefix []byte) bool { return bytes.HasPrefix(prefix, []byte("PAR1")) }
