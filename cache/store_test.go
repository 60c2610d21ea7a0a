package cache

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"testing"
)

// checkObserver enforces the Observer contract: for each key, Stored and
// Evicted alternate, starting with Stored.
type checkObserver struct {
	t       testing.TB
	mu      sync.Mutex
	present map[string]bool
	stored  int
	evicted int
}

func newCheckObserver(t testing.TB) *checkObserver {
	return &checkObserver{t: t, present: map[string]bool{}}
}

func (o *checkObserver) Stored(key string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.present[key] {
		o.t.Errorf("Stored(%q) twice without Evicted", key)
	}
	o.present[key] = true
	o.stored++
}

func (o *checkObserver) Evicted(key string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.present[key] {
		o.t.Errorf("Evicted(%q) without Stored", key)
	}
	delete(o.present, key)
	o.evicted++
}

// matches checks the observed set equals the store's keys.
func (o *checkObserver) matches(s Store) {
	o.t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	keys := s.Keys()
	if len(keys) != len(o.present) || s.Len() != len(keys) {
		o.t.Fatalf("store has %d keys (Len %d), observer %d", len(keys), s.Len(), len(o.present))
	}
	for _, k := range keys {
		if !o.present[k] {
			o.t.Fatalf("store key %q not seen by the observer", k)
		}
	}
}

// testEntry makes an entry of key with a body of size less 300 bytes (at
// least 0), about size in all.
func testEntry(key string, size int) *Entry {
	e := &Entry{URL: key, Status: 200, Header: http.Header{"Cache-Control": {"max-age=60"}},
		RequestTime: t0, ResponseTime: t0}
	e.Body = make([]byte, max(size-300, 0))
	for i := range e.Body {
		e.Body[i] = byte(i)
	}
	return e
}

func keyN(i int) string { return fmt.Sprintf("http://example.com/%d", i) }

// stores runs f on a fresh Memory and Disk store of budget max.
func stores(t *testing.T, max int64, f func(t *testing.T, s Store, o *checkObserver)) {
	t.Run("memory", func(t *testing.T) {
		o := newCheckObserver(t)
		s, err := NewMemory(MemoryConfig{MaxBytes: max, Observer: o})
		if err != nil {
			t.Fatal(err)
		}
		f(t, s, o)
	})
	t.Run("disk", func(t *testing.T) {
		o := newCheckObserver(t)
		s, err := OpenDisk(DiskConfig{Dir: t.TempDir(), MaxBytes: max, Observer: o, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f(t, s, o)
	})
}

// openStore opens a store of kind "memory" or "disk" with budget max.
func openStore(t *testing.T, kind string, max int64, o Observer) Store {
	t.Helper()
	var s Store
	var err error
	if kind == "memory" {
		s, err = NewMemory(MemoryConfig{MaxBytes: max, Observer: o})
	} else {
		s, err = OpenDisk(DiskConfig{Dir: t.TempDir(), MaxBytes: max, Observer: o, Logger: quietLogger()})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestStoreLRUOrderAndBudget(t *testing.T) {
	for _, kind := range []string{"memory", "disk"} {
		t.Run(kind, func(t *testing.T) { testLRUOrderAndBudget(t, kind) })
	}
}

func testLRUOrderAndBudget(t *testing.T, kind string) {
	// What the store charges for an entry, asked of an empty store of the
	// same kind: the charges themselves are tested against the heap and
	// against du.
	probe := openStore(t, kind, 1<<30, nil)
	charge := func(e *Entry) int64 {
		if err := probe.Put(e); err != nil {
			t.Fatal(err)
		}
		n := probe.Bytes()
		probe.Delete(e.URL)
		return n
	}
	unit := charge(testEntry(keyN(0), 1000))
	// The big entry costs more than one and at most two small ones.
	bigSize := 1000
	for charge(testEntry(keyN(5), bigSize)) <= unit {
		bigSize += 100
	}
	big := charge(testEntry(keyN(5), bigSize))
	if big > 2*unit {
		t.Fatalf("charges %d and %d", unit, big)
	}
	o := newCheckObserver(t)
	s := openStore(t, kind, 5*unit, o)
	for i := range 5 {
		if err := s.Put(testEntry(keyN(i), 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != 5 || s.Bytes() != 5*unit {
		t.Fatalf("Len %d Bytes %d, want 5 and %d", s.Len(), s.Bytes(), 5*unit)
	}
	// Touch 0 and 2: the least recently used are now 1, 3, 4.
	for _, i := range []int{0, 2} {
		e, ok := s.Get(keyN(i))
		if !ok || e.URL != keyN(i) || len(e.Body) != len(testEntry(keyN(i), 1000).Body) {
			t.Fatalf("Get(%d) = %v %v", i, e != nil, ok)
		}
	}
	if err := s.Put(testEntry(keyN(5), bigSize)); err != nil { // evicts 1 and 3
		t.Fatal(err)
	}
	want := []string{keyN(0), keyN(2), keyN(4), keyN(5)}
	got := s.Keys()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	if s.Bytes() != 3*unit+big {
		t.Fatalf("Bytes %d, want %d", s.Bytes(), 3*unit+big)
	}
	// Replacing an entry counts once.
	if err := s.Put(testEntry(keyN(5), 1000)); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 4 || s.Bytes() != 4*unit {
		t.Fatalf("after replace: Len %d Bytes %d", s.Len(), s.Bytes())
	}
	// Too large: refused, and the old entry of the key goes.
	if err := s.Put(testEntry(keyN(0), int(6*unit))); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized Put: %v", err)
	}
	if _, ok := s.Get(keyN(0)); ok {
		t.Fatal("old entry kept after a refused Put")
	}
	if !s.Delete(keyN(2)) || s.Delete(keyN(2)) {
		t.Fatal("Delete reports wrongly")
	}
	if s.Bytes() != 2*unit || s.Len() != 2 {
		t.Fatalf("Len %d Bytes %d, want 2 and %d", s.Len(), s.Bytes(), 2*unit)
	}
	o.matches(s)
}

// TestObserverInvariantRandom drives a store with a random mix of
// operations, from several goroutines, and checks the Observer contract
// and that the observed set is the store's key set.
func TestObserverInvariantRandom(t *testing.T) {
	stores(t, 40000, func(t *testing.T, s Store, o *checkObserver) {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(42, uint64(g)))
				for range 300 {
					k := keyN(rng.IntN(40))
					switch op := rng.IntN(10); {
					case op < 5:
						_ = s.Put(testEntry(k, 400+rng.IntN(3000)))
					case op < 6:
						_ = s.Put(testEntry(k, 50000)) // refused
					case op < 8:
						s.Get(k)
					default:
						s.Delete(k)
					}
				}
			}()
		}
		wg.Wait()
		if s.Bytes() > 40000 {
			t.Fatalf("Bytes %d over budget", s.Bytes())
		}
		o.matches(s)
		if o.stored == 0 || o.evicted == 0 {
			t.Fatalf("stored %d evicted %d: the test exercised nothing", o.stored, o.evicted)
		}
	})
}

func TestStoreConfig(t *testing.T) {
	if _, err := NewMemory(MemoryConfig{}); !errors.Is(err, ErrConfig) {
		t.Errorf("NewMemory without budget: %v", err)
	}
	if _, err := OpenDisk(DiskConfig{MaxBytes: 1}); !errors.Is(err, ErrConfig) {
		t.Errorf("OpenDisk without Dir: %v", err)
	}
	if _, err := OpenDisk(DiskConfig{Dir: t.TempDir()}); !errors.Is(err, ErrConfig) {
		t.Errorf("OpenDisk without budget: %v", err)
	}
}
