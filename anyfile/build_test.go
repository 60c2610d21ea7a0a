package anyfile_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/params"
)

// Build a filter sized for the distinct keys added, and write it.
func ExampleBuilder() {
	b, err := anyfile.NewBuilder(anyfile.BuildConfig{Query: params.Query{P: 0.001}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, key := range []string{"a", "b", "c", "a"} {
		b.Add([]byte(key))
	}
	f, r, err := b.Finish()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Kind(), r.Read, "keys read,", r.Distinct, "distinct")
	fmt.Println(r.Shape.Layout, "m =", r.Shape.M, "k =", r.Shape.K)
	in, _ := f.Contains([]byte("b"))
	fmt.Println("b:", in)
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		fmt.Println(err)
		return
	}
	g, err := anyfile.Read(&buf, anyfile.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	bf, _ := anyfile.As[*bloom.Filter](g)
	fmt.Println("read back:", g.Kind(), bf.Count())
	// Output:
	// Bloom filter 4 keys read, 3 distinct
	// blocked m = 512 k = 2
	// b: true
	// read back: Bloom filter 3
}

func TestBuilderKinds(t *testing.T) {
	keys := []string{"x", "y", "z", "y"}
	for _, c := range []struct {
		kind  anyfile.Kind
		query params.Query
	}{
		{anyfile.Bloom, params.Query{N: 100, P: 0.01, Layout: params.Classic}},
		{anyfile.Bloom, params.Query{M: 4096, K: 3}},
		{anyfile.Counting, params.Query{N: 100, P: 0.01}},
		{anyfile.Counting, params.Query{}},
		{anyfile.Deletion, params.Query{N: 100, P: 0.01, Layout: params.Partitioned}},
	} {
		b, err := anyfile.NewBuilder(anyfile.BuildConfig{Kind: c.kind, Query: c.query, Seed: 7, Width: 8})
		if err != nil {
			t.Fatal(c, err)
		}
		for _, k := range keys {
			b.Add([]byte(k))
		}
		f, r, err := b.Finish()
		if err != nil {
			t.Fatal(c, err)
		}
		if f.Kind() != c.kind || r.Read != 4 || r.Distinct != 3 || !r.Exact {
			t.Errorf("%v: kind %v, read %d, distinct %d, exact %v", c, f.Kind(), r.Read, r.Distinct, r.Exact)
		}
		for _, k := range keys {
			if in, err := f.Contains([]byte(k)); !in || err != nil {
				t.Errorf("%v: %q absent", c, k)
			}
		}
		var buf bytes.Buffer
		if _, err := f.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		g, err := anyfile.Read(&buf, anyfile.Options{})
		if err != nil || g.Kind() != c.kind {
			t.Fatalf("%v: read back %v, %v", c, g.Kind(), err)
		}
	}
}

func TestBuilderEstimatedCount(t *testing.T) {
	b, err := anyfile.NewBuilder(anyfile.BuildConfig{Query: params.Query{N: 1000, P: 0.01}, MaxExactDistinct: 10, Folds: bloom.DefaultFolds})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		b.Add(fmt.Appendf(nil, "key%d", i))
	}
	f, r, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if r.Exact || !as[*bloom.Filter](f).CountEstimated() || r.Distinct != as[*bloom.Filter](f).Count() || r.Read != 500 {
		t.Errorf("got %+v, count %d estimated %v", r, as[*bloom.Filter](f).Count(), as[*bloom.Filter](f).CountEstimated())
	}
	if as[*bloom.Filter](f).Folds() < bloom.DefaultFolds {
		t.Errorf("folds %d", as[*bloom.Filter](f).Folds())
	}
}

func TestBuilderRefuses(t *testing.T) {
	if _, err := anyfile.NewBuilder(anyfile.BuildConfig{Kind: anyfile.Squid}); err == nil {
		t.Error("a Squid digest built")
	}
	if _, err := anyfile.NewBuilder(anyfile.BuildConfig{Query: params.Query{N: 10, P: 2}}); err == nil {
		t.Error("p = 2 accepted")
	}
	if _, _, err := new(anyfile.Builder).Finish(); err == nil {
		t.Error("zero Builder finished")
	}
}
