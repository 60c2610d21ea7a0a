package anyfile_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/mht"
)

// has reports whether As finds a T in f.
func has[T any](f *anyfile.File) bool {
	_, ok := anyfile.As[T](f)
	return ok
}

// TestAs: every kind yields its own structure, a counting filter and a
// Squid digest also their bits, and no kind another kind's structure.
func TestAs(t *testing.T) {
	checks := []struct {
		name string
		has  func(*anyfile.File) bool
		of   []anyfile.Kind
	}{
		{"*bloom.Filter", has[*bloom.Filter], []anyfile.Kind{anyfile.Bloom, anyfile.Counting, anyfile.Squid}},
		{"*counting.Filter", has[*counting.Filter], []anyfile.Kind{anyfile.Counting}},
		{"*squid.Digest", has[*squid.Digest], []anyfile.Kind{anyfile.Squid}},
		{"*digest.Delta", has[*digest.Delta], []anyfile.Kind{anyfile.Delta}},
		{"*counting.DeletionFilter", has[*counting.DeletionFilter], []anyfile.Kind{anyfile.Deletion}},
		{"*fpset.Sorted", has[*fpset.Sorted], []anyfile.Kind{anyfile.FPSet}},
		{"*bloomier.Filter", has[*bloomier.Filter], []anyfile.Kind{anyfile.Bloomier}},
		{"*mht.Table", has[*mht.Table], []anyfile.Kind{anyfile.MHT}},
		{"*digest.Pieces", has[*digest.Pieces], nil},
	}
	for kind, b := range files(t) {
		f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		for _, c := range checks {
			want := false
			for _, k := range c.of {
				want = want || k == kind
			}
			if got := c.has(f); got != want {
				t.Errorf("%v: As[%s] found %t, want %t", kind, c.name, got, want)
			}
		}
	}
	if has[*bloom.Filter](nil) || has[*bloom.Filter](&anyfile.File{}) {
		t.Error("As found a structure in a File that holds none")
	}
}

// TestAsLazyPieces: a Bloom filter read lazily in pieces is a
// *digest.Pieces and, until a change decodes it, no *bloom.Filter.
func TestAsLazyPieces(t *testing.T) {
	bf := newBloom(t)
	b, err := digest.EncodePieces(&digest.Digest{Bloom: bf}, digest.Fast, 64)
	if err != nil {
		t.Fatal(err)
	}
	f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{LazyPieces: true})
	if err != nil {
		t.Fatal(err)
	}
	if !has[*digest.Pieces](f) || has[*bloom.Filter](f) {
		t.Fatalf("lazily read: pieces %t, filter %t", has[*digest.Pieces](f), has[*bloom.Filter](f))
	}
	if err := f.Add([]byte("b")); err != nil {
		t.Fatal(err)
	}
	if g, ok := anyfile.As[*bloom.Filter](f); !ok || !g.Contains([]byte(url)) {
		t.Errorf("after Add: filter %t", ok)
	}
}

// Reach what only one kind has: a counting filter's counters.
func ExampleAs() {
	cf := counting.MustNew(counting.Config{N: 1000, P: 0.01})
	cf.AddString("http://example.com/")
	cf.AddString("http://example.com/")
	b, err := cf.MarshalBinary()
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if c, ok := anyfile.As[*counting.Filter](f); ok {
		fmt.Println(f.Kind(), "count:", c.Count([]byte("http://example.com/")))
	}
	_, ok := anyfile.As[*squid.Digest](f)
	fmt.Println("a Squid digest:", ok)
	// Output:
	// counting filter count: 2
	// a Squid digest: false
}

// as is the T that f holds, or T's zero value (anyfile.As).
func as[T any](f *anyfile.File) T {
	t, _ := anyfile.As[T](f)
	return t
}
