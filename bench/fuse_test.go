package bench

import (
	"math/rand/v2"
	"testing"

	xorfilter "github.com/FastFilter/xorfilter"

	"github.com/bloomcast/bloomcast/internal/fuse"
)

// TestFuseSizesMatchFastFilter checks internal/fuse's binary fuse sizes (Graf and
// Lemire 2022, section 5) against the fingerprint arrays FastFilter's Go
// binary fuse filter allocates for the same keys, 8 and 16 bits, from
// 10^3 to 2·10^6 keys, and the measured rate of the 8-bit filter at 10^5
// keys against 2^-8. FastFilter's Go module has only the 3-wise filter;
// the 4-wise formula is pinned in params' own tests.
func TestFuseSizesMatchFastFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 1))
	for _, n := range []int{1000, 10000, 100000, 1000000, 2000000} {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = rng.Uint64()
		}
		f8, err := xorfilter.NewBinaryFuse[uint8](append([]uint64(nil), keys...))
		if err != nil {
			t.Fatal(err)
		}
		f16, err := xorfilter.NewBinaryFuse[uint16](append([]uint64(nil), keys...))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			bits  int
			slots int
		}{{8, len(f8.Fingerprints)}, {16, len(f16.Fingerprints)}} {
			s, err := fuse.OfBits(uint64(n), 3, c.bits)
			if err != nil {
				t.Fatal(err)
			}
			if uint64(c.slots) != s.Slots() {
				t.Errorf("n = %d, %d bits: FastFilter has %d slots, params %s = %d", n, c.bits, c.slots, s, s.Slots())
			}
			t.Logf("n = %d, %d bits: %d slots, %.3f bits per key (params %.3f)", n, c.bits, c.slots,
				float64(c.slots*c.bits)/float64(n), s.BitsPerKey())
		}
		if n == 100000 {
			const absent = 1000000
			hits := 0
			for range absent {
				if f8.Contains(rng.Uint64()) {
					hits++
				}
			}
			// 2^-8 of 10^6 is 3906, standard deviation 62.
			if rate := float64(hits) / absent; rate < 0.0037 || rate > 0.0041 {
				t.Errorf("binary fuse 8 at 10^5: measured rate %g, want 2^-8", rate)
			}
		}
	}
}
