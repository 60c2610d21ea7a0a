package parquet

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// compact is the thrift compact protocol of Parquet's metadata.
var compact thrift.CompactProtocol

// maxThriftDepth bounds the nesting of thrift structs and containers that
// checkThrift accepts; Parquet's own metadata nests some ten levels.
const maxThriftDepth = 64

// checkThrift walks one thrift compact struct at the start of data with
// parquet-go's protocol reader, without decoding it, and returns its
// length. It refuses nesting deeper than maxThriftDepth and any list, set
// or map that declares more elements than bytes remain (every element
// takes at least one byte), so that the decoder that follows, which
// allocates a container's declared size before reading it, allocates at
// most a small multiple of the input.
func checkThrift(data []byte) (int, error) {
	r := compact.NewReaderFromBytes(data)
	if err := walkStruct(r, len(data), 0); err != nil {
		return 0, err
	}
	return r.BytesRead(), nil
}

func walkStruct(r thrift.BytesReader, size, depth int) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("thrift nesting deeper than %d", maxThriftDepth)
	}
	for {
		f, err := r.ReadField()
		if err != nil {
			return err
		}
		if f.Type == thrift.STOP {
			return nil
		}
		if f.Type == thrift.TRUE || f.Type == thrift.FALSE {
			continue // a compact bool field's value is its type
		}
		if err := walkValue(r, f.Type, size, depth+1); err != nil {
			return err
		}
	}
}

// walkElems checks a container's declared element count against the bytes
// left and walks its elements.
func walkElems(r thrift.BytesReader, n int32, types []thrift.Type, size, depth int) error {
	if n < 0 || int64(n) > int64(size-r.BytesRead()) {
		return fmt.Errorf("thrift container of %d elements with %d bytes left", n, size-r.BytesRead())
	}
	for i := int32(0); i < n; i++ {
		for _, t := range types {
			if err := walkValue(r, t, size, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func walkValue(r thrift.BytesReader, t thrift.Type, size, depth int) error {
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
			err = walkElems(r, l.Size, []thrift.Type{l.Type}, size, depth)
		}
	case thrift.MAP:
		var m thrift.Map
		if m, err = r.ReadMap(); err == nil {
			err = walkElems(r, m.Size, []thrift.Type{m.Key, m.Value}, size, depth)
		}
	case thrift.STRUCT:
		err = walkStruct(r, size, depth)
	default:
		err = fmt.Errorf("thrift type %d", t)
	}
	return err
}

// decodeThrift checks data (walkStruct) and decodes its first struct into
// v with parquet-go's decoder, returning the struct's length.
func decodeThrift(data []byte, v any) (int, error) {
	n, err := checkThrift(data)
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
