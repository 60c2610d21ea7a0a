package anyfile

import (
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

// The registry: which kinds there are, and what a frame's type or a
// format decodes into. Every kind has its own file (kind_*.go) with its
// type, which holds the structure and answers File's methods for it;
// adding a kind takes that file, its constant and name here, and its
// decoder's line in the table of frames or formats (and for "bloomcast
// inspect", a report in internal/filereport's table).

// A Kind is what a File holds. The zero value names no kind: a File
// that holds nothing.
type Kind int

// The kinds of File.
const (
	Bloom         Kind = iota + 1 // a Bloom filter
	Counting                      // a counting filter
	Squid                         // a Squid Cache Digest
	Delta                         // a delta digest
	Deletion                      // a deletion filter
	FPSet                         // a fingerprint set, sorted or Rice-coded
	Bloomier                      // a Bloomier filter
	MHT                           // a multilevel hash table
	MHTSummary                    // a summary of a multilevel hash table
	Guava                         // a Guava BloomFilter (formats/guava)
	BitsAndBlooms                 // a bits-and-blooms/bloom/v3 filter (formats/bitsandblooms)
	SBBF                          // a Parquet split block Bloom filter, alone (formats/parquet)
	ParquetFile                   // a Parquet file, with a split block Bloom filter per column chunk
	Scalable                      // a scalable Bloom filter: layers that grow
	Ribbon                        // a ribbon filter: static, near the information bound
	Static                        // a static digest: a ribbon filter and the keys added and removed since
)

var kindNames = [...]string{Bloom: "Bloom filter", Counting: "counting filter", Squid: "Squid cache digest",
	Delta: "delta digest", Deletion: "deletion filter", FPSet: "fingerprint set", Bloomier: "Bloomier filter",
	MHT: "multilevel hash table", MHTSummary: "multilevel-hash-table summary",
	Guava: "Guava Bloom filter", BitsAndBlooms: "bits-and-blooms Bloom filter",
	SBBF: "Parquet split block Bloom filter", ParquetFile: "Parquet file",
	Scalable: "scalable Bloom filter", Ribbon: "ribbon filter", Static: "static digest"}

// String names the kind: "Bloom filter", "Squid cache digest", ….
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// frameDecoders decode a bloomcast frame's payload into a File, by the
// frame's type.
var frameDecoders = map[envelope.Type]func(f *File, payload []byte, opt Options) error{
	envelope.TypeBloom:     decodeBloom,
	envelope.TypeCounting:  decodeBloom,
	envelope.TypeScalable:  decodeScalable,
	envelope.TypeDelta:     decodeDelta,
	envelope.TypeDeletion:  decodeDeletion,
	envelope.TypeFPSet:     decodeFPSet,
	envelope.TypeBloomier:  decodeBloomier,
	envelope.TypeRibbon:    decodeRibbon,
	envelope.TypeStatic:    decodeStatic,
	envelope.TypeMHT:       decodeTable,
	envelope.TypeMHTInterp: decodeSummary,
	envelope.TypeMHTFilter: decodeSummary,
	envelope.TypeMHTMBF:    decodeSummary,
}

// foreignDecoders decode a whole file of another program's format into a
// File.
var foreignDecoders = map[Format]func(f *File, data []byte) error{
	FormatGuava:             decodeGuava,
	FormatBitsAndBlooms:     decodeBitsAndBlooms,
	FormatBitsAndBloomsJSON: decodeBitsAndBloomsJSON,
	FormatParquetSBBF:       decodeSBBF,
	FormatParquet:           decodeParquet,
}

// newForeign makes an empty filter of another program's format as a Spec
// says (New); shaped is whether the Spec gives M and K.
var newForeign = map[Format]func(f *File, s Spec, shaped bool) error{
	FormatGuava:             newGuava,
	FormatBitsAndBlooms:     newBitsAndBlooms,
	FormatBitsAndBloomsJSON: newBitsAndBlooms,
	FormatParquetSBBF:       newSBBF,
}

// Kind says what f holds; 0 for a File that holds nothing.
func (f *File) Kind() Kind { return f.kind().Kind() }

// kind is the implementation of what f holds: none for a File that
// holds nothing.
func (f *File) kind() kind {
	if f == nil || f.k == nil {
		return none{}
	}
	return f.k
}

// A kind is one kind of file: the structure it holds and the operations
// of File on it, each given the File for its header, format and key
// type. Every kind is a type of its own (kind_*.go); embedding none
// gives the refusals and zeros of a kind that does not do something.
type kind interface {
	// Kind is File.Kind.
	Kind() Kind
	// contains is File.Contains.
	contains(f *File, key []byte) (bool, error)
	// add is File.Add.
	add(f *File, key []byte) error
	// encoding is File.Encoding.
	encoding(f *File, codec digest.Codec) (io.WriterTo, error)
	// convertFrame is File.Convert within bloomcast's frames.
	convertFrame(f *File, codec digest.Codec) (io.WriterTo, error)
	// digest is File.Digest.
	digest(f *File) *digest.Digest
	// combine is File.Union and Intersect, g of f's kind.
	combine(f, g *File, intersect bool) error
	// foldable is File.Foldable; fold halves a foldable f.
	foldable(f *File) error
	fold(f *File, toBits uint64) error
	// stats is File.Stats.
	stats(f *File) Stats
	// checkKeys refuses a key type the kind does not hash.
	checkKeys(f *File) error
	// structures are what As finds, the kind's own first.
	structures() []any
	// codec is File.Codec; entropyBits File.EntropyBits.
	codec(f *File) digest.Codec
	entropyBits() float64
}

// kindOf is g's kind as a K, the type of f's: for combining two files
// that File.combine found of one kind.
func kindOf[K kind](g *File) K { return g.k.(K) }

// none is a File that holds nothing, and the refusals the kinds embed.
type none struct{}

func (none) contains(*File, []byte) (bool, error) { return false, errEmptyFile }

func (none) add(f *File, _ []byte) error { return errorf("%s takes no keys", article(f.Kind())) }

func (none) encoding(f *File, _ digest.Codec) (io.WriterTo, error) {
	return nil, errorf("%s is not written back", article(f.Kind()))
}

func (none) convertFrame(f *File, _ digest.Codec) (io.WriterTo, error) {
	return nil, errorf("%s is written only as it was built", article(f.Kind()))
}

func (none) digest(*File) *digest.Digest { return nil }

func (none) combine(f, _ *File, _ bool) error {
	return errorf("%s does not combine", article(f.Kind()))
}

func (none) foldable(f *File) error { return errorf("%s cannot be folded", article(f.Kind())) }

func (n none) fold(f *File, _ uint64) error { return n.foldable(f) }

func (none) stats(*File) Stats { return Stats{} }

func (none) Kind() Kind { return 0 }

func (none) structures() []any { return nil }

func (none) codec(f *File) digest.Codec { return codecOf(f.Header.Codec) }

func (none) entropyBits() float64 { return 0 }

func (none) checkKeys(f *File) error {
	if f.Keys == KeyString {
		return nil
	}
	return errorf("%s hashes keys as bytes: only Guava filters take keys as longs, and Parquet filters as long, int, float or double", article(f.Kind()))
}
