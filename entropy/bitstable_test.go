package entropy

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestBitsTable decodes RANS streams of many densities and lengths with a
// BitsTable, whole and bit by bit (with and without marks), and checks
// them against DecodeBits.
func TestBitsTable(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 1))
	for _, m := range []uint64{1, 7, 8, 63, 64, 65, 511, 512, 1000, 8192, 8193, 30000} {
		for _, p := range []float64{0.001, 0.01, 0.06, 0.2, 0.35, 0.65, 0.94, 0.999} {
			words := masked(randomBits(r, m, p), m)
			for _, c := range []Codec{Fast, RANS} {
				src, err := EncodeBits(nil, words, m, c)
				if err != nil {
					t.Fatal(err)
				}
				var tab *BitsTable
				if d, ok := StreamDensity(src); ok {
					tab = NewBitsTable(d)
				} else if Codec(src[0]) == RANS {
					t.Fatalf("m=%d p=%v: no density in a RANS stream", m, p)
				}
				got := make([]uint64, wordsFor(m))
				if err := tab.Decode(got, src, m); err != nil || !slices.Equal(got, words) {
					t.Fatalf("m=%d p=%v %v: Decode: %v", m, p, Codec(src[0]), err)
				}
				marks := make([]BitsMark, 3)
				clear(got)
				if err := tab.DecodeMarks(got, src, m, 64, marks); err != nil || !slices.Equal(got, words) {
					t.Fatalf("m=%d p=%v %v: DecodeMarks: %v", m, p, Codec(src[0]), err)
				}
				for i := uint64(0); i < m; i += 1 + uint64(r.IntN(37)) {
					want := words[i/64]>>(i%64)&1 != 0
					for _, ms := range [][]BitsMark{nil, marks, marks[:1]} {
						if set, err := tab.Bit(src, m, i, ms); err != nil || set != want {
							t.Fatalf("m=%d p=%v %v: bit %d with %d marks: %v %v, want %v", m, p, Codec(src[0]), i, len(ms), set, err, want)
						}
					}
				}
				if _, err := tab.Bit(src, m, m, nil); !errors.Is(err, ErrLength) {
					t.Fatalf("bit past m: %v", err)
				}
			}
		}
	}
}

// TestBitsTableConcurrent checks the documented claim that a BitsTable is
// safe for concurrent use: goroutines decode streams of one density with
// one table at once (run with -race).
func TestBitsTableConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 1))
	const m = 8192
	words := masked(randomBits(r, m, 0.06), m)
	src, err := EncodeBits(nil, words, m, RANS)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := StreamDensity(src)
	if !ok {
		t.Fatal("no density in a RANS stream")
	}
	tab := NewBitsTable(d)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]uint64, wordsFor(m))
			if err := tab.Decode(got, src, m); err != nil || !slices.Equal(got, words) {
				t.Errorf("Decode under concurrent use: %v", err)
			}
			for i := uint64(0); i < m; i += 97 {
				want := words[i/64]>>(i%64)&1 != 0
				if set, err := tab.Bit(src, m, i, nil); err != nil || set != want {
					t.Errorf("bit %d under concurrent use: %v %v, want %v", i, set, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestBitsTableHostile gives a table truncated, corrupted and mismatched
// streams: errors, never a panic, and no marks kept from a stream that
// does not decode.
func TestBitsTableHostile(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 2))
	const m = 8192
	src, _ := EncodeBits(nil, randomBits(r, m, 0.06), m, Fast)
	d, _ := StreamDensity(src)
	tab := NewBitsTable(d)
	dst := make([]uint64, wordsFor(m))
	other := NewBitsTable(d + 1)
	if err := other.Decode(dst, src, m); !errors.Is(err, ErrCorrupt) {
		t.Errorf("table of another density: %v", err)
	}
	if _, err := other.Bit(src, m, 5, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bit with a table of another density: %v", err)
	}
	for n := range len(src) {
		if err := tab.Decode(dst, src[:n], m); err == nil {
			t.Fatalf("decoded %d of %d bytes", n, len(src))
		}
		tab.Bit(src[:n], m, m-1, nil) // no panic
	}
	marks := make([]BitsMark, 3)
	bad := slices.Clone(src)
	bad[len(bad)-1] ^= 0x40
	if err := tab.DecodeMarks(dst, bad, m, 256, marks); err == nil {
		t.Fatal("a corrupted stream decoded")
	}
	if marks[0] != (BitsMark{}) {
		t.Fatal("marks kept from a stream that does not decode")
	}
	if err := tab.DecodeMarks(dst, src, m, 12, marks); !errors.Is(err, ErrLength) {
		t.Fatalf("marks every 12 bytes: %v", err)
	}
	arith, _ := EncodeBits(nil, dst, m, Arith)
	if err := tab.Decode(dst, arith, m); !errors.Is(err, ErrCodec) {
		t.Fatalf("an arith stream: %v", err)
	}
}

// FuzzBitsTable: any bytes decode with a table of their density as
// DecodeBits decodes them, and a bit read from them alone agrees with
// the whole decoding whenever it succeeds.
func FuzzBitsTable(f *testing.F) {
	seedBits(f, Fast, RANS)
	f.Fuzz(func(t *testing.T, src []byte, m uint64) {
		m %= fuzzMaxBits
		d, _ := StreamDensity(src)
		tab := NewBitsTable(d)
		want := make([]uint64, wordsFor(m))
		werr := DecodeBits(want, src, m, Fast)
		got := make([]uint64, wordsFor(m))
		marks := make([]BitsMark, 4)
		gerr := tab.DecodeMarks(got, src, m, 64, marks)
		if (werr == nil) != (gerr == nil) || werr == nil && !slices.Equal(got, want) {
			t.Fatalf("DecodeBits: %v, the table: %v", werr, gerr)
		}
		for i := uint64(0); i < m; i += 1 + m/17 {
			set, err := tab.Bit(src, m, i, marks)
			if werr == nil && (err != nil || set != (want[i/64]>>(i%64)&1 != 0)) {
				t.Fatalf("bit %d: %v %v", i, set, err)
			}
		}
	})
}

// TestBitsTableZero: the zero BitsTable refuses a RANS stream, even one
// that claims its density, rather than reading a table it does not have.
func TestBitsTableZero(t *testing.T) {
	var zero BitsTable
	src := []byte{byte(RANS), 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	dst := make([]uint64, 1)
	if err := zero.Decode(dst, src, 64); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Decode: %v", err)
	}
	if _, err := zero.Bit(src, 64, 3, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Bit: %v", err)
	}
}
