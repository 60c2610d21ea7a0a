package bloom_test

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// A filter sized for 1000 keys at a 1% false-positive rate. The blocked
// layout keeps a key's probes in one cache line, the fastest layout for a
// few percent more memory than the classic one (the zero Layout).
func ExampleNew() {
	for _, layout := range []bloom.Layout{bloom.Classic, bloom.Blocked} {
		f, err := bloom.New(bloom.Config{Layout: layout, N: 1000, P: 0.01, Seed: 1})
		if err != nil {
			panic(err)
		}
		f.AddString("http://www.example.com/")
		fmt.Printf("%v: %d bits, k = %d, has the key: %v, has another: %v\n", f.Layout(), f.M(), f.K(),
			f.ContainsString("http://www.example.com/"), f.ContainsString("http://www.example.org/"))
	}
	// Output:
	// classic: 9600 bits, k = 7, has the key: true, has another: false
	// blocked: 10240 bits, k = 5, has the key: true, has another: false
}

// A filter travels in its frame (envelope): MarshalBinary or WriteTo on
// one side, Decode or Read on the other, with limits on what a decoder
// accepts from the network.
// A filter whose keys are hashed with XXH3-64 (hashing scheme 3) rather
// than the default XXH3-128: the same probes, a shorter hash. The scheme
// travels with the filter, so a reader needs no setting.
func ExampleConfig_scheme() {
	f, err := bloom.New(bloom.Config{Layout: bloom.Blocked, N: 1000, P: 0.01, Scheme: hashing.Fast64})
	if err != nil {
		panic(err)
	}
	f.AddString("https://example.com/")
	b, err := f.MarshalBinary()
	if err != nil {
		panic(err)
	}
	g, err := bloom.Decode(b, envelope.Limits{})
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Scheme().ID() == hashing.XXH3x64, g.ContainsString("https://example.com/"))
	// Output: true true
}

func ExampleDecode() {
	f := bloom.MustNew(bloom.Config{Layout: bloom.Blocked, N: 100, P: 0.01, Seed: 7})
	f.AddString("a")
	f.AddString("b")
	b, err := f.MarshalBinary()
	if err != nil {
		panic(err)
	}
	g, err := bloom.Decode(b, envelope.Limits{MaxPayload: 1 << 20})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(b), g.Equal(f), g.Count(), g.ContainsString("a"), g.ContainsString("c"))
	_, err = bloom.Decode(b[:len(b)-1], envelope.Limits{})
	fmt.Println(err != nil)
	// Output:
	// 192 true 2 true false
	// true
}

// Union ORs another filter of the same shape and seed into this one: the
// filter of the union of their key sets.
func ExampleFilter_Union() {
	c := bloom.Config{Layout: bloom.Blocked, N: 1000, P: 0.01, Seed: 3}
	a, b := bloom.MustNew(c), bloom.MustNew(c)
	a.AddString("only in a")
	b.AddString("only in b")
	if err := a.Union(b); err != nil {
		panic(err)
	}
	fmt.Println(a.ContainsString("only in a"), a.ContainsString("only in b"))

	other := bloom.MustNew(bloom.Config{Layout: bloom.Blocked, N: 1000, P: 0.01, Seed: 4})
	fmt.Println(a.Union(other))
	// Output:
	// true true
	// bloom: incompatible filters: seed 0x3 vs 0x4
}

// A Concurrent filter takes adds and queries from many goroutines at once;
// Snapshot copies it into a plain Filter, to encode or send. It counts no
// adds (a shared counter would be contended): the snapshot's Count is
// estimated from the bits set.
func ExampleConcurrent() {
	c, err := bloom.NewConcurrent(bloom.Config{Layout: bloom.Blocked, N: 10000, P: 0.01, Seed: 1})
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				c.AddString(fmt.Sprintf("worker %d key %d", w, i))
			}
		}()
	}
	wg.Wait()
	snap := c.Snapshot()
	fmt.Println(snap.Count(), c.ContainsString("worker 3 key 999"), snap.ContainsString("worker 0 key 0"))
	// Output:
	// 4005 true true
}

// Batch queries hash a group of keys first, then answer them together: on
// a filter far larger than the caches, the lines of the next group are
// fetched while the current one is answered.
func ExampleFilter_ContainsBatch() {
	f := bloom.MustNew(bloom.Config{Layout: bloom.Blocked, N: 1000, P: 0.01, Seed: 1})
	keys := []string{"a", "b", "c", "d"}
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = f.HashString(k)
	}
	f.AddBatch(hs[:2]) // add "a" and "b"
	found := make([]bool, len(hs))
	f.ContainsBatch(hs, found)
	fmt.Println(found)
	// Output:
	// [true true false false]
}

// WriteTo and Read stream a framed filter, for files and connections.
func ExampleRead() {
	f := bloom.MustNew(bloom.Config{N: 100, P: 0.01, Seed: 9})
	f.AddString("k")
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		panic(err)
	}
	g, n, err := bloom.Read(&buf, envelope.Limits{})
	fmt.Println(err, n == int64(f.EncodedSize()), g.ContainsString("k"))
	// Output:
	// <nil> true true
}

// A Config with N and no P is sized for DefaultP (1%), as "bloomcast
// build" is without -p; the layout is named, as New's doc says.
func ExampleDefaultP() {
	f := bloom.MustNew(bloom.Config{N: 1000, Layout: bloom.Blocked})
	g := bloom.MustNew(bloom.Config{N: 1000, P: 0.01, Layout: bloom.Blocked})
	fmt.Println(f.M() == g.M(), f.K() == g.K())
	// Output: true true
}
