package counting_test

import (
	"fmt"
	"math/bits"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
)

func ExampleFilter() {
	f, err := counting.New(counting.Config{Layout: bloom.Blocked, N: 1000, P: 0.01})
	if err != nil {
		panic(err)
	}
	f.AddString("http://example.com/a")
	f.AddString("http://example.com/a")
	f.AddString("http://example.com/b")
	fmt.Println(f.CountString("http://example.com/a"), f.ContainsString("http://example.com/b"))

	_ = f.RemoveString("http://example.com/b")
	err = f.RemoveString("http://example.com/b") // never added twice: refused
	fmt.Println(f.ContainsString("http://example.com/b"), err)
	// Output:
	// 2 true
	// false counting: key not present: a counter of the key is zero, nothing removed
}

func ExampleFilter_BitView() {
	f := counting.MustNew(counting.Config{N: 1000, P: 0.01})
	f.AddString("cached")
	view := f.BitView() // a read-only bloom.Filter over f's own bits
	fmt.Println(view.ContainsString("cached"))
	_ = f.RemoveString("cached")
	fmt.Println(view.ContainsString("cached")) // always current
	// Output:
	// true
	// false
}

func ExampleFilter_ChangedWords() {
	f := counting.MustNew(counting.Config{M: 1 << 16, K: 4})
	f.AddString("old")
	f.Mark() // published a full digest here
	f.AddString("new")
	_ = f.RemoveString("old")
	changes, _ := f.ChangedWords(nil)
	flipped := 0
	for _, c := range changes {
		flipped += bits.OnesCount64(c.Old ^ c.New)
	}
	fmt.Println(flipped, "bits to send in the delta")
	// Output: 8 bits to send in the delta
}

func ExampleConfig_minimalIncrease() {
	f := counting.MustNew(counting.Config{M: 4096, K: 4, MinimalIncrease: true})
	for range 5 {
		f.AddString("hot")
	}
	f.AddString("cold")
	fmt.Println(f.CountString("hot"), f.CountString("cold"))
	fmt.Println(f.RemoveString("cold"))
	// Output:
	// 5 1
	// counting: minimal-increase filters cannot remove keys
}

func ExampleConfig_noBitView() {
	// Membership, counts and removal, and no digests to publish: keep the
	// counters only.
	f := counting.MustNew(counting.Config{N: 1000, P: 0.01, NoBitView: true})
	withView := counting.MustNew(counting.Config{N: 1000, P: 0.01})
	f.AddString("a")
	f.AddString("a")
	f.AddString("b")
	_ = f.RemoveString("b")
	fmt.Println(f.CountString("a"), f.ContainsString("a"), f.ContainsString("b"))
	fmt.Println(f.SizeBytes(), "bytes, against", withView.SizeBytes(), "with a bit view")
	fmt.Println(f.BitView() == nil)
	_, err := f.ChangedWords(nil)
	fmt.Println(err)
	// Output:
	// 2 true false
	// 4800 bytes, against 6000 with a bit view
	// true
	// counting: filter has no bit view (Config.NoBitView): no changes to report
}

func ExampleDeletionFilter() {
	d, _ := counting.NewDeletion(bloom.Config{N: 100, P: 0.01})
	d.AddString("a")
	d.AddString("b")
	d.RemoveString("a")
	fmt.Println(d.ContainsString("a"), d.ContainsString("b"))
	// Output: false true
}

func ExampleDecodeDeletion() {
	d, err := counting.NewDeletion(bloom.Config{Layout: bloom.Classic, N: 100, P: 0.01})
	if err != nil {
		panic(err)
	}
	d.AddString("kept")
	d.AddString("gone")
	d.RemoveString("gone")
	b, _ := d.MarshalBinary()
	e, err := counting.DecodeDeletion(b, envelope.Limits{})
	if err != nil {
		panic(err)
	}
	fmt.Println(e.ContainsString("kept"), e.ContainsString("gone"), e.Added().Count(), e.Removed().Count())
	// Output: true false 2 1
}

// A counting filter travels in its frame like a Bloom filter, counters
// included, so a receiver can go on adding and removing.
func ExampleDecode() {
	f := counting.MustNew(counting.Config{Layout: bloom.Blocked, N: 1000, P: 0.01, Seed: 5})
	f.AddString("a")
	f.AddString("a")
	b, err := f.MarshalBinary()
	if err != nil {
		panic(err)
	}
	g, err := counting.Decode(b, envelope.Limits{MaxPayload: 1 << 20})
	if err != nil {
		panic(err)
	}
	_ = g.RemoveString("a")
	fmt.Println(g.Equal(f), g.CountString("a"), f.CountString("a"))
	// Output:
	// false 1 2
}
