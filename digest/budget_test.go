package digest_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Send 10,000 keys in one 1,472-byte packet: the filter with the lowest
// rate that fits, coded.
func ExampleEncodeWithin() {
	var hs []hashing.Hash128
	for i := range 10000 {
		hs = append(hs, hashing.SumSeed(fmt.Appendf(nil, "key%d", i), 0))
	}
	b := digest.Budget{N: 10000, Bytes: 1472}
	msg, res, err := digest.EncodeWithin(b, 0, hs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("fits:", len(msg) <= 1472, "coded:", res.Best.Compressed, "k =", res.Best.Shape.K)
	d, err := digest.Decode(msg, envelope.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("key17 present:", d.Bloom.Contains([]byte("key17")))
	r := digest.NewBudgetReport(b, res)
	fmt.Println("raw of the same bytes is worse:", r.RateGainRaw < 1)
	// Output:
	// fits: true coded: true k = 13
	// key17 present: true
	// raw of the same bytes is worse: true
}

func TestBudgetQuery(t *testing.T) {
	b := digest.Budget{N: 1000, Bytes: 5000, Packet: 1472, Layout: params.Blocked, MaxBits: 20000, MaxBitsPerKey: 30}
	if b.Effective() != 3*1472 {
		t.Errorf("effective %d", b.Effective())
	}
	q := b.Query()
	if q.Bytes != 3*1472 || q.FrameBytes != digest.BudgetFrameBytes || q.MaxBits != 20000 || len(q.Layouts) != 1 {
		t.Errorf("query %+v", q)
	}
	if (digest.Budget{N: 1000, Bytes: 100, Packet: 1472}).Effective() != 1472 {
		t.Error("less than a packet is not one packet")
	}
	if _, err := (digest.Budget{N: 10, Bytes: digest.BudgetFrameBytes + 8}).Solve(); err == nil {
		t.Error("a budget with no room solved")
	}
	if _, err := (digest.Budget{}).Solve(); err == nil {
		t.Error("the zero budget solved")
	}
	var over *digest.OverBudgetError
	if errors.As(error(&digest.OverBudgetError{Bytes: 2, Budget: 1}), &over); over.Error() == "" {
		t.Error("no message")
	}
}

func TestEncodeWithinFits(t *testing.T) {
	var hs []hashing.Hash128
	for i := range 3000 {
		hs = append(hs, hashing.SumSeed(fmt.Appendf(nil, "k%d", i), 5))
	}
	for _, bytes := range []uint64{200, 1000, 4000, 20000} {
		b := digest.Budget{N: 3000, Bytes: bytes}
		msg, res, err := digest.EncodeWithin(b, 5, hs)
		if err != nil {
			t.Fatal(bytes, err)
		}
		if uint64(len(msg)) > bytes {
			t.Errorf("budget %d: %d bytes", bytes, len(msg))
		}
		d, err := digest.Decode(msg, envelope.Limits{})
		if err != nil || d.Bloom.Seed() != 5 || d.Bloom.K() != res.Best.Shape.K {
			t.Fatalf("budget %d: %v", bytes, err)
		}
		for _, h := range hs[:100] {
			if !d.Bloom.ContainsHash(h) {
				t.Fatalf("budget %d: a key is missing", bytes)
			}
		}
	}
}

// TestEncodeWithinDistinct checks that a Budget without N is solved for
// the distinct keys among the hashes.
func TestEncodeWithinDistinct(t *testing.T) {
	var hs []hashing.Hash128
	for i := range 4000 {
		hs = append(hs, hashing.SumSeed(fmt.Appendf(nil, "k%d", i%2500), 5))
	}
	_, res, err := digest.EncodeWithin(digest.Budget{Bytes: 2000}, 5, hs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := (digest.Budget{N: 2500, Bytes: 2000}).Solve()
	if err != nil || res.Best != want.Best {
		t.Errorf("without N: %+v; for 2500 keys: %+v (%v)", res.Best, want.Best, err)
	}
	if _, _, err := digest.EncodeWithin(digest.Budget{Bytes: 2000}, 5, nil); err != nil {
		t.Errorf("no keys: %v", err)
	}
}
