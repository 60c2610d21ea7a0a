package digest

import (
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
)

// lookupShape is a node's peer view at m/n 48, k 3 (classic, as a
// counting filter's digest), read in 1 KiB fast-coded pieces.
func lookupShape(n int) bloom.Config {
	return bloom.Config{Layout: bloom.Classic, M: uint64(48 * n), K: 3, Seed: 7}
}

// checkAnswers compares the view's answer for keys [0, to) with f's.
func checkAnswers(t *testing.T, v *Pieces, f *bloom.Filter, to int) {
	t.Helper()
	for i := range to {
		got, err := v.Contains(key(i))
		if err != nil || got != f.Contains(key(i)) {
			t.Fatalf("key %d: %v %v, the filter says %v", i, got, err, f.Contains(key(i)))
		}
	}
}

// TestPiecesPartialReads reads every piece whole, then by marks and in
// part, across a patch that recodes some pieces: the answers stay those of
// the filter, for views made by PiecesOf and by DecodePieces.
func TestPiecesPartialReads(t *testing.T) {
	const n = 5000
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, lookupShape(n), 0, n)}
	next := &Digest{Sequence: 2, Bloom: base.Bloom.Clone()}
	for i := n; i < n+200; i++ {
		next.Bloom.Add(key(i))
	}
	delta, err := Diff(base, next, Fast)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := Encode(base, Fast)
	pieces, _ := EncodePieces(base, Fast, 1<<10)
	for name, make := range map[string]func() (*Pieces, error){
		"PiecesOf":     func() (*Pieces, error) { return PiecesOf(whole, envelope.Limits{}, Fast, 1<<10, 0) },
		"DecodePieces": func() (*Pieces, error) { return DecodePieces(pieces, envelope.Limits{}, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			v, err := make()
			if err != nil {
				t.Fatal(err)
			}
			checkAnswers(t, v, base.Bloom, 2*n) // decodes each piece whole once
			decoded := v.Decoded()
			checkAnswers(t, v, base.Bloom, 2*n) // in part, from the marks
			// Some pieces become hot and are cached, but most reads are
			// in part: 2n keys read some 3n pieces.
			if d := v.Decoded() - decoded; d > uint64(v.Pieces()) {
				t.Errorf("%d pieces of %d decoded whole again", d, v.Pieces())
			}
			if err := v.Patch(delta, envelope.Limits{}); err != nil {
				t.Fatal(err)
			}
			checkAnswers(t, v, next.Bloom, 2*n)
			checkAnswers(t, v, next.Bloom, 2*n)
		})
	}
}

// TestPiecesMemoryBelowDecoded: a view at m/n 48, k 3 in 1 KiB pieces,
// every piece read (so that it holds its decoding tables and marks), still
// holds less than its decoded bit array.
func TestPiecesMemoryBelowDecoded(t *testing.T) {
	const n = 100000
	f := bloomWith(t, lookupShape(n), 0, n)
	msg, _ := Encode(&Digest{Bloom: f}, Fast)
	v, err := PiecesOf(msg, envelope.Limits{}, Fast, 1<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 * n {
		if _, err := v.Contains(key(i)); err != nil {
			t.Fatal(err)
		}
	}
	held, decoded := v.MemoryBytes(), 8*v.Words()
	t.Logf("held %d bytes, decoded array %d bytes, %d pieces decoded whole", held, decoded, v.Decoded())
	if v.Decoded() < uint64(v.Pieces()) {
		t.Fatalf("%d of %d pieces read", v.Decoded(), v.Pieces())
	}
	if held >= decoded {
		t.Fatalf("the view holds %d bytes, the decoded array %d", held, decoded)
	}
}

// TestPiecesConcurrentLookupPatch looks keys up in a view read in part
// while deltas patch it (run with -race): stored keys are found
// throughout, and every answer afterwards is the final filter's.
func TestPiecesConcurrentLookupPatch(t *testing.T) {
	const n = 4000
	base := &Digest{Sequence: 1, Bloom: bloomWith(t, lookupShape(n), 0, n)}
	whole, _ := Encode(base, Fast)
	v, err := PiecesOf(whole, envelope.Limits{}, Fast, 1<<10, 2)
	if err != nil {
		t.Fatal(err)
	}
	var deltas [][]byte
	final := base
	for step := range 10 {
		next := &Digest{Sequence: final.Sequence + 1, Bloom: final.Bloom.Clone()}
		for i := 2*n + 50*step; i < 2*n+50*(step+1); i++ {
			next.Bloom.Add(key(i))
		}
		d, _ := Diff(final, next, Fast)
		deltas = append(deltas, d)
		final = next
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 3000 {
				i := (g*7919 + r*31) % n
				if in, err := v.Contains(key(i)); err != nil || !in {
					t.Errorf("stored key %d: %v %v", i, in, err)
					return
				}
				v.Contains(key(n + r)) // absent, or added by a delta
			}
		}()
	}
	for _, d := range deltas {
		if err := v.Patch(d, envelope.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	checkAnswers(t, v, final.Bloom, 3*n)
}

// TestPiecesLookupAllocs: once every piece has been read (decoded whole,
// its marks taken, its density's table built), lookups allocate nothing,
// whether they read a piece in part, from the cache, or decode a hot
// piece whole again.
func TestPiecesLookupAllocs(t *testing.T) {
	const n = 20000
	f := bloomWith(t, lookupShape(n), 0, n)
	msg, _ := Encode(&Digest{Bloom: f}, Fast)
	v, err := PiecesOf(msg, envelope.Limits{}, Fast, 1<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswers(t, v, f, 2*n)
	keys := make([][]byte, 2*n)
	for i := range keys {
		keys[i] = key(i)
	}
	decoded := v.Decoded()
	i := 0
	allocs := testing.AllocsPerRun(4000, func() {
		// Half the lookups of one key (its pieces become hot), half
		// spread over present and absent keys (read in part).
		k := 0
		if i%2 == 1 {
			k = i * 7919 % (2 * n)
		}
		i++
		if got, err := v.Contains(keys[k]); err != nil || !got && k < n {
			t.Fatalf("key %d: %v %v", k, got, err)
		}
	})
	if allocs != 0 {
		t.Errorf("a lookup made %v allocations", allocs)
	}
	if v.Decoded() == decoded {
		t.Error("no hot piece decoded whole: the test misses that path")
	}
}

// TestPiecesMarkSpacing reads views whose pieces code to different sizes,
// so that they keep marks every 128, 256 or 512 bytes or none: once every
// piece has been decoded whole, the answers are the filter's, read in
// part, and a view of a digest that compresses (m/n 48 and up) holds less
// than its decoded array. (Below that, a decoding table a piece, one per
// density, already makes a view hold more than the array.)
func TestPiecesMarkSpacing(t *testing.T) {
	const n = 30000
	for _, bitsPerKey := range []int{48, 24, 16, 12} {
		f := bloomWith(t, bloom.Config{Layout: bloom.Classic, M: uint64(bitsPerKey * n), K: 3, Seed: 7}, 0, n)
		msg, _ := Encode(&Digest{Bloom: f}, Fast)
		v, err := PiecesOf(msg, envelope.Limits{}, Fast, 1<<10, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; v.Decoded() < uint64(v.Pieces()); i++ {
			if _, err := v.Contains(key(i)); err != nil {
				t.Fatal(err)
			}
		}
		decoded := v.Decoded()
		for i := n - 2000; i < n+2000; i++ { // half present, half absent
			if got, err := v.Contains(key(i)); err != nil || got != f.Contains(key(i)) {
				t.Fatalf("m/n %d, key %d: %v %v, the filter says %v", bitsPerKey, i, got, err, !got)
			}
		}
		if d := v.Decoded() - decoded; d > uint64(v.Pieces()) {
			t.Errorf("m/n %d: %d pieces of %d decoded whole again", bitsPerKey, d, v.Pieces())
		}
		v.mu.Lock()
		spacing := map[uint64]int{}
		for _, p := range v.st.pieces {
			_, every := v.marksFor(v.tableLocked(p), p)
			spacing[every]++
		}
		v.mu.Unlock()
		t.Logf("m/n %d: %d coded bytes, pieces by mark spacing %v, held %d of %d bytes", bitsPerKey, v.CodedBytes(), spacing, v.MemoryBytes(), 8*v.Words())
		if bitsPerKey >= 48 && v.MemoryBytes() >= 8*v.Words() {
			t.Errorf("m/n %d: the view holds %d bytes, the decoded array %d", bitsPerKey, v.MemoryBytes(), 8*v.Words())
		}
	}
}

// TestPiecesTablesDropped patches a view of two pieces again and again,
// each patch changing both pieces' densities, reading it between patches:
// once the decoding tables outnumber the pieces they are dropped, the
// pieces read with them are decoded whole again with new ones, and every
// answer stays the filter's.
func TestPiecesTablesDropped(t *testing.T) {
	const n = 300
	cur := &Digest{Sequence: 1, Bloom: bloomWith(t, lookupShape(n), 0, n)}
	whole, _ := Encode(cur, Fast)
	v, err := PiecesOf(whole, envelope.Limits{}, Fast, 1<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Pieces() != 2 {
		t.Fatalf("%d pieces, want 2", v.Pieces())
	}
	most, drops, held, added := 0, 0, 0, n
	for step := range 80 {
		next := &Digest{Sequence: cur.Sequence + 1, Bloom: cur.Bloom.Clone()}
		for range 4 {
			next.Bloom.Add(key(added))
			added++
		}
		delta, err := Diff(cur, next, Fast)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Patch(delta, envelope.Limits{}); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		cur = next
		checkAnswers(t, v, cur.Bloom, added+50)
		v.mu.Lock()
		if len(v.tables) < held {
			drops++
		}
		held = len(v.tables)
		most = max(most, held)
		v.mu.Unlock()
	}
	checkAnswers(t, v, cur.Bloom, added+50)
	if most != 64 || drops == 0 {
		t.Errorf("at most %d tables held, dropped %d times; want 64, then dropped", most, drops)
	}
}
