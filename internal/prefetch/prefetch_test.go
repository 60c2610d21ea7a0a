package prefetch

import "testing"

// TestBits runs the hint over the edges of an array: it must neither fault
// nor change anything, with the assembly and with the pure-Go twin
// (go test -tags purego).
func TestBits(t *testing.T) {
	words := make([]uint64, 1<<16)
	for i := range words {
		words[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	pos := []uint64{0, 1, 63, 64, 511, 512, 4095 * 64, 1<<22 - 1}
	Bits(words, pos)
	Bits(words, nil)
	Bits(words[:1], pos[:3])
	for i, w := range words {
		if w != uint64(i)*0x9E3779B97F4A7C15 {
			t.Fatalf("word %d changed", i)
		}
	}
	t.Logf("assembly: %v", Assembly)
}

func TestBitsAllocatesNothing(t *testing.T) {
	words := make([]uint64, 1024)
	pos := make([]uint64, MaxPositions)
	for i := range pos {
		pos[i] = uint64(i) * 1021
	}
	if n := testing.AllocsPerRun(100, func() { Bits(words, pos) }); n != 0 {
		t.Fatalf("Bits allocates %v times per call", n)
	}
}

func BenchmarkBits(b *testing.B) {
	words := make([]uint64, 1<<22)
	pos := make([]uint64, 16)
	for i := range pos {
		pos[i] = uint64(i) * 65521 % (1 << 28)
	}
	for b.Loop() {
		Bits(words, pos)
	}
}
