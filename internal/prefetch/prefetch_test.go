package prefetch

import "testing"

// TestWords runs the hint over the edges of an array: it must neither
// fault nor change anything, with the assembly and with the pure-Go twin
// (go test -tags purego).
func TestWords(t *testing.T) {
	words := make([]uint64, 1<<16)
	for i := range words {
		words[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	pos := []uint64{0, 1, 63, 64, 511, 512, 4095 * 64, 1<<22 - 1}
	Words(words, pos, 6)
	Words(words, nil, 6)
	Words(words[:1], pos[:3], 6)
	Words(words, []uint64{0, 1 << 19, 1<<20 - 1}, 4)
	Words(words, []uint64{1<<16 - 1}, 0)
	for i, w := range words {
		if w != uint64(i)*0x9E3779B97F4A7C15 {
			t.Fatalf("word %d changed", i)
		}
	}
	t.Logf("assembly: %v", Assembly)
}

func TestWordsAllocatesNothing(t *testing.T) {
	words := make([]uint64, 1024)
	pos := make([]uint64, MaxPositions)
	for i := range pos {
		pos[i] = uint64(i) * 1021
	}
	if n := testing.AllocsPerRun(100, func() { Words(words, pos, 6) }); n != 0 {
		t.Fatalf("Words allocates %v times per call", n)
	}
}

func BenchmarkWords(b *testing.B) {
	words := make([]uint64, 1<<22)
	pos := make([]uint64, 16)
	for i := range pos {
		pos[i] = uint64(i) * 65521 % (1 << 28)
	}
	for b.Loop() {
		Words(words, pos, 6)
	}
}
