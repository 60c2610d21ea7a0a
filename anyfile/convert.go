package anyfile

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

// ErrLossy is the error of a conversion that would not keep what the
// file answers: the two formats hash keys differently, or one has no
// place for what the other holds. Rebuilding the filter from its keys in
// the other format is the way there.
var ErrLossy = errors.New("no lossless conversion")

// hashingOf says how a format turns a key into bits, for the messages of
// refused conversions.
var hashingOf = map[Format]string{
	FormatBloomcast:         "by its frame's hashing scheme (XXH3-128 unless it says otherwise) and layout",
	FormatSquid:             "by MD5 store keys, four probes into its mask",
	FormatGuava:             "by MurmurHash3 x64 128 of the funnelled key with Guava's MITZ probes",
	FormatBitsAndBlooms:     "by MurmurHash3 x64 128 of the key and of the key and 0x01, with bloom/v3's locations",
	FormatBitsAndBloomsJSON: "by MurmurHash3 x64 128 of the key and of the key and 0x01, with bloom/v3's locations",
	FormatParquetSBBF:       "by xxHash64 of the value's plain encoding into a 256-bit block with the spec's eight salts",
	FormatParquet:           "by xxHash64 of the value's plain encoding into a 256-bit block with the spec's eight salts",
}

// family groups the formats that are one filter in two encodings.
func (f Format) family() Format {
	if f == FormatBitsAndBloomsJSON {
		return FormatBitsAndBlooms
	}
	return f
}

// Convert returns what writing f in format to writes, where that keeps
// every answer and everything f records:
//
//   - within bloomcast's frames, a Bloom or counting filter with codec
//     (digest.Auto for the smallest; f.Codec() keeps f's), any other kind
//     as it was read;
//   - bits-and-blooms' binary and JSON forms, either way;
//   - any file in its own format, as it was read (codec applies to
//     bloomcast frames only).
//
// Every other pair is refused with an *Error wrapping ErrLossy that says
// why: no two formats of different programs hash keys alike, so a key's
// bits in one are not its bits in the other, and a Squid digest's header
// has no place in a bloomcast frame. The filter must then be rebuilt from
// its keys in the other format. A Parquet file's filters come out one
// column chunk at a time, by ColumnFilter.
func (f *File) Convert(to Format, codec digest.Codec) (io.WriterTo, error) {
	from := f.Format()
	switch {
	case from == 0:
		return nil, errEmptyFile
	case to <= 0 || int(to) >= len(formatNames):
		return nil, errorf("unknown format %v", to)
	case from == FormatBloomcast && to == from:
		return f.kind().convertFrame(f, codec)
	case to == from:
		return f.Encoding(f.Codec())
	case to.family() == from.family() && from.family() == FormatBitsAndBlooms:
		return kindOf[*bitsAndBloomsKind](f).marshal(to == FormatBitsAndBloomsJSON)
	}
	return nil, &Error{fmt.Errorf("%w from %s to %v: %s", ErrLossy, article(f.Kind()), to, lossReason(from, to))}
}

// ColumnFilter returns the split block filter of one column chunk of a
// Parquet file as a standalone filter (FormatParquetSBBF): the chunk's
// bitset as the file stores it, which Encoding writes with the header
// Parquet stores before it, so that nothing is lost. column is a path as
// parquet.File.Columns spells it; rowGroup < 0 picks the only row group
// whose chunk of the column carries a filter. Keys is set to the key type
// of the column's physical type, where one hashes as it does.
//
// A file that is not a Parquet file, an unknown column, a row group
// without a filter for it, or rowGroup < 0 with filters in several row
// groups is an error that says which there are.
func (f *File) ColumnFilter(column string, rowGroup int) (*File, error) {
	if f.Format() != FormatParquet {
		return nil, errorf("%s has no column chunks: only a Parquet file does", article(f.Kind()))
	}
	pf := kindOf[*parquetKind](f).p
	if !slices.Contains(pf.Columns(), column) {
		return nil, errorf("no column %q in the Parquet file (columns: %s)", column, strings.Join(pf.Columns(), ", "))
	}
	var chunks []parquet.Chunk
	var groups []string
	for _, c := range pf.Filters() {
		if c.Column == column {
			chunks = append(chunks, c)
			groups = append(groups, strconv.Itoa(c.RowGroup))
		}
	}
	switch {
	case len(chunks) == 0:
		return nil, errorf("column %s carries no bloom filter in any of the file's %d row groups", column, pf.RowGroups())
	case rowGroup < 0 && len(chunks) > 1:
		return nil, errorf("column %s has a bloom filter in each of row groups %s: choose one", column, strings.Join(groups, ", "))
	case rowGroup < 0:
		rowGroup = chunks[0].RowGroup
	}
	i := slices.IndexFunc(chunks, func(c parquet.Chunk) bool { return c.RowGroup == rowGroup })
	if i < 0 {
		return nil, errorf("row group %d of the file's %d has no bloom filter for column %s (row groups with one: %s)", rowGroup, pf.RowGroups(), column, strings.Join(groups, ", "))
	}
	flt, err := pf.ReadFilter(chunks[i])
	if err != nil {
		return nil, err
	}
	g := &File{k: &sbbfKind{p: flt}, format: FormatParquetSBBF}
	if k := slices.Index(parquetTypes[:], chunks[i].Type); k >= 0 {
		g.Keys = KeyType(k)
	}
	return g, nil
}

// lossReason says why a file in format from does not become one in to.
func lossReason(from, to Format) string {
	switch {
	case from == FormatSquid && to == FormatBloomcast:
		return "a Squid digest's header (capacity, bits per entry, deletions) has no place in a bloomcast frame"
	case from == FormatParquet && to == FormatParquetSBBF:
		return "a Parquet file holds one filter per column chunk, not one filter"
	case to == FormatParquet:
		return "a Parquet file's filters describe the values of its row groups; bloomcast writes no Parquet files"
	case from == FormatBloomcast && to == FormatSquid:
		return "a Squid digest's mask is set by MD5 store keys with four probes, and its header records a capacity that a bloomcast frame does not"
	}
	return fmt.Sprintf("%v sets a key's bits %s, %v %s, so a key's bits in one are not its bits in the other",
		from, hashingOf[from], to, hashingOf[to])
}

// A Spec says what filter of another program's format New makes. The
// zero Spec names no format, and New refuses it.
type Spec struct {
	Format Format
	// N and P size the filter for N keys at false-positive rate P, as
	// the program's own constructor sizes it: Guava's
	// BloomFilter.create (guava.New), bloom/v3's NewWithEstimates. N of
	// 0 is taken as 1.
	N uint64
	P float64
	// M and K, both set, give the shape instead: M bits (Guava: rounded
	// up to whole 64-bit words) and K probes per key.
	M uint64
	K int
	// Keys is how keys are hashed (File.Keys).
	Keys KeyType
}

// New returns an empty filter of another program's format (Guava:
// strategy MURMUR128_MITZ_64, as Guava builds them; bits-and-blooms: its
// binary form, or its JSON form for FormatBitsAndBloomsJSON) as s says.
// Bloomcast's own filters and Squid's are made by packages bloom,
// counting and squid.
func New(s Spec) (*File, error) {
	if s.Format == FormatBloomcast || s.Format == FormatSquid || s.Format == FormatParquet {
		return nil, errorf("New makes filters of other programs' formats; packages bloom, counting and squid make %v's, and Parquet files are written by Parquet writers", s.Format)
	}
	make := newForeign[s.Format]
	if make == nil {
		return nil, errorf("unknown format %v", s.Format)
	}
	f := &File{format: s.Format, Keys: s.Keys}
	if err := make(f, s, s.M > 0 && s.K > 0); err != nil {
		return nil, err
	}
	if err := f.checkKeys(); err != nil {
		return nil, err
	}
	return f, nil
}
