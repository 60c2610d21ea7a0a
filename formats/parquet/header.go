package parquet

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// compact is the thrift compact protocol of Parquet's metadata.
var compact thrift.CompactProtocol

// maxThriftDepth bounds the nesting of thrift structs and containers that
// checkThrift accepts; Parquet's own metadata nests some ten levels.
const maxThriftDepth = 64

// maxDecodedRatio bounds what decoding a thrift struct (a footer, a bloom
// filter header) may allocate, as a multiple of its encoded length.
// parquet-go allocates a list's elements when it reads the list's header,
// at their Go size, and an element that takes a byte may be a ColumnChunk
// of some 560 bytes; real footers decode to some 10 times their length.
const maxDecodedRatio = 32

// Which struct walkStruct is in, for the Go size of the lists' elements.
const (
	inOther    = iota
	inFooter   // a FileMetaData, whose field 4 lists RowGroups
	inRowGroup // a RowGroup, whose field 1 lists ColumnChunks
)

// listedStructSize is the Go size of a struct element of any footer list
// but a RowGroup's columns.
const listedStructSize = max(unsafe.Sizeof(format.SchemaElement{}), unsafe.Sizeof(format.RowGroup{}),
	unsafe.Sizeof(format.KeyValue{}), unsafe.Sizeof(format.SortingColumn{}),
	unsafe.Sizeof(format.PageEncodingStats{}), unsafe.Sizeof(format.ColumnOrder{}))

// walker walks a thrift compact struct without decoding it, adding up what
// parquet-go's decoder allocates for its containers.
type walker struct {
	r     thrift.BytesReader
	size  int   // the encoded length
	alloc int64 // the containers' elements walked so far, at their Go size
}

// checkThrift walks one thrift compact struct at the start of data with
// parquet-go's protocol reader, without decoding it, and returns its
// length. It refuses nesting deeper than maxThriftDepth, any list, set or
// map that declares more elements than bytes remain (every element takes
// at least one byte), and containers whose elements would take more than
// maxDecodedRatio times data's length, so that the decoder that follows,
// which allocates a container's declared size before reading it,
// allocates at most a small multiple of the input. top says which struct
// it is (inFooter for a FileMetaData).
func checkThrift(data []byte, top int) (int, error) {
	w := &walker{r: compact.NewReaderFromBytes(data), size: len(data)}
	if err := w.walkStruct(top, 0); err != nil {
		return 0, err
	}
	return w.r.BytesRead(), nil
}

func (w *walker) walkStruct(in, depth int) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("thrift nesting deeper than %d", maxThriftDepth)
	}
	for {
		f, err := w.r.ReadField()
		if err != nil {
			return err
		}
		if f.Type == thrift.STOP {
			return nil
		}
		if f.Type == thrift.TRUE || f.Type == thrift.FALSE {
			continue // a compact bool field's value is its type
		}
		elems := inOther
		if in == inFooter && f.ID == 4 {
			elems = inRowGroup
		}
		structSize := int64(listedStructSize)
		if in == inRowGroup && f.ID == 1 {
			structSize = int64(unsafe.Sizeof(format.ColumnChunk{}))
		}
		if err := w.walkValue(f.Type, elems, structSize, depth+1); err != nil {
			return err
		}
	}
}

// walkElems checks a container's declared element count against the bytes
// left and what its elements take decoded against the limit, and walks
// the elements.
func (w *walker) walkElems(n int32, types []thrift.Type, in int, structSize int64, depth int) error {
	if n < 0 || int64(n) > int64(w.size-w.r.BytesRead()) {
		return fmt.Errorf("thrift container of %d elements with %d bytes left", n, w.size-w.r.BytesRead())
	}
	for _, t := range types {
		w.alloc += int64(n) * goSize(t, structSize)
	}
	if limit := maxDecodedRatio * int64(w.size); w.alloc > limit {
		return fmt.Errorf("thrift containers that take %d bytes decoded, more than %d times the %d bytes encoded", w.alloc, maxDecodedRatio, w.size)
	}
	for i := int32(0); i < n; i++ {
		for _, t := range types {
			if err := w.walkValue(t, in, structSize, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// goSize is the size of a container's element of type t in the Go value
// parquet-go decodes it to, at most.
func goSize(t thrift.Type, structSize int64) int64 {
	switch t {
	case thrift.STRUCT:
		return structSize
	case thrift.BINARY, thrift.LIST, thrift.SET:
		return int64(unsafe.Sizeof([]byte(nil)))
	case thrift.MAP, thrift.UUID:
		return 16
	}
	return 8
}

func (w *walker) walkValue(t thrift.Type, in int, structSize int64, depth int) error {
	r := w.r
	var err error
	switch t {
	case thrift.TRUE, thrift.FALSE: // a container's bool element: one byte
		_, err = r.ReadInt8()
	case thrift.I8:
		_, err = r.ReadInt8()
	case thrift.I16:
		_, err = r.ReadInt16()
	case thrift.I32:
		_, err = r.ReadInt32()
	case thrift.I64:
		_, err = r.ReadInt64()
	case thrift.DOUBLE:
		_, err = r.ReadFloat64()
	case thrift.BINARY:
		_, err = r.ReadBytes()
	case thrift.UUID:
		if _, err = r.ReadFloat64(); err == nil {
			_, err = r.ReadFloat64()
		}
	case thrift.LIST, thrift.SET:
		var l thrift.List
		if l, err = r.ReadList(); err == nil {
			err = w.walkElems(l.Size, []thrift.Type{l.Type}, in, structSize, depth)
		}
	case thrift.MAP:
		var m thrift.Map
		if m, err = r.ReadMap(); err == nil {
			err = w.walkElems(m.Size, []thrift.Type{m.Key, m.Value}, in, structSize, depth)
		}
	case thrift.STRUCT:
		err = w.walkStruct(in, depth)
	default:
		err = fmt.Errorf("thrift type %d", t)
	}
	return err
}

// decodeThrift checks data (walkStruct) and decodes its first struct into
// v with parquet-go's decoder, returning the struct's length.
func decodeThrift(data []byte, v any) (int, error) {
	top := inOther
	if _, ok := v.(*format.FileMetaData); ok {
		top = inFooter
	}
	n, err := checkThrift(data, top)
	if err != nil {
		return 0, oneLine(err)
	}
	r := compact.NewReaderFromBytes(data[:n])
	if err := thrift.NewDecoder(r).Decode(v); err != nil {
		return 0, oneLine(err)
	}
	return n, nil
}

// oneLine returns err as one line, io.EOF as the truncation it means.
func oneLine(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated")
	}
	s := err.Error()
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			s = s[:i]
			break
		}
	}
	return errors.New(s)
}

// header is the part of a BloomFilterHeader this package reads.
type header struct {
	numBytes int
	size     int // the encoded header's length
}

// parseHeader decodes the thrift BloomFilterHeader at the start of data
// and checks that it describes an uncompressed split-block filter hashed
// with xxHash64 whose bitset size is a multiple of 32 in [MinBytes,
// MaxBytes]. It does not look at the bitset.
func parseHeader(data []byte) (header, error) {
	var h format.BloomFilterHeader
	n, err := decodeThrift(data, &h)
	if err != nil {
		return header{}, fmt.Errorf("%w: bloom filter header: %w", ErrCorrupt, err)
	}
	// A union member parquet-go does not know decodes as nil.
	if h.Algorithm.Value == nil || h.Hash.Value == nil || h.Compression.Value == nil {
		return header{}, fmt.Errorf("%w: bloom filter algorithm, hash or compression other than BLOCK, XXHASH and UNCOMPRESSED", ErrUnsupported)
	}
	if _, ok := h.Algorithm.Value.(*format.SplitBlockAlgorithm); !ok {
		return header{}, fmt.Errorf("%w: bloom filter algorithm %T, want BLOCK", ErrUnsupported, h.Algorithm.Value)
	}
	if _, ok := h.Hash.Value.(*format.XxHash); !ok {
		return header{}, fmt.Errorf("%w: bloom filter hash %T, want XXHASH", ErrUnsupported, h.Hash.Value)
	}
	if _, ok := h.Compression.Value.(*format.BloomFilterUncompressed); !ok {
		return header{}, fmt.Errorf("%w: bloom filter compression %T, want UNCOMPRESSED", ErrUnsupported, h.Compression.Value)
	}
	nb := int64(h.NumBytes)
	if nb < MinBytes || nb > MaxBytes || nb%BlockBytes != 0 {
		return header{}, fmt.Errorf("%w: bloom filter of %d bytes, want a multiple of %d in %d..%d", ErrCorrupt, nb, BlockBytes, MinBytes, MaxBytes)
	}
	return header{numBytes: int(nb), size: n}, nil
}

// appendHeader appends the thrift compact BloomFilterHeader of a bitset of
// numBytes bytes.
func appendHeader(dst []byte, numBytes int) ([]byte, error) {
	h := format.BloomFilterHeader{
		NumBytes:    int32(numBytes),
		Algorithm:   format.BloomFilterAlgorithm{Value: &format.SplitBlockAlgorithm{}},
		Hash:        format.BloomFilterHash{Value: &format.XxHash{}},
		Compression: format.BloomFilterCompression{Value: &format.BloomFilterUncompressed{}},
	}
	b, err := thrift.Marshal(&compact, &h)
	if err != nil {
		return dst, fmt.Errorf("parquet: encoding the bloom filter header: %w", err)
	}
	return append(dst, b...), nil
}

// MarshalBinary returns the filter as Parquet writers store it at a
// column chunk's bloom_filter_offset: the thrift compact BloomFilterHeader
// (numBytes, BLOCK, XXHASH, UNCOMPRESSED), then the bitset. It refuses the
// zero Filter.
func (f *Filter) MarshalBinary() ([]byte, error) {
	if len(f.words) == 0 {
		return nil, fmt.Errorf("%w: the zero Filter has no blocks", ErrConfig)
	}
	out, err := appendHeader(make([]byte, 0, 16+f.Bytes()), f.Bytes())
	if err != nil {
		return nil, err
	}
	return append(out, f.Bitset()...), nil
}

// UnmarshalBinary decodes a standalone filter into f, as Decode does.
func (f *Filter) UnmarshalBinary(data []byte) error {
	g, err := Decode(data)
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// Decode decodes a standalone filter: a thrift compact BloomFilterHeader
// followed by exactly numBytes of bitset. Missing or trailing bytes, a
// header that is not thrift or lacks a required field, and any algorithm,
// hash or compression other than BLOCK, XXHASH and UNCOMPRESSED are
// errors; nothing is allocated for the bitset before the input is known
// to hold it.
func Decode(data []byte) (*Filter, error) {
	h, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	if have := len(data) - h.size; have != h.numBytes {
		return nil, fmt.Errorf("%w: header claims a bitset of %d bytes, %d follow", ErrCorrupt, h.numBytes, have)
	}
	return FromBitset(data[h.size:])
}

// Sniff reports whether prefix, the first bytes of a file (at least the
// header's, some 15 bytes), starts with the BloomFilterHeader of a filter
// this package decodes. It does not check the bitset's length.
func Sniff(prefix []byte) bool {
	_, err := parseHeader(prefix)
	return err == nil
}
