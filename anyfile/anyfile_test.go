package anyfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
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

const url = "http://example.com/a"

func bytesOf(t *testing.T, w io.WriterTo) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func newBloom(t *testing.T) *bloom.Filter {
	t.Helper()
	f, err := bloom.New(bloom.Config{Layout: bloom.Blocked, N: 1000, P: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	f.Add([]byte(url))
	return f
}

// files returns one encoding of each kind, with url in it.
func files(t *testing.T) map[anyfile.Kind][]byte {
	t.Helper()
	out := map[anyfile.Kind][]byte{}
	bf := newBloom(t)
	b, err := digest.Encode(&digest.Digest{Bloom: bf, Sequence: 7}, digest.Fast)
	if err != nil {
		t.Fatal(err)
	}
	out[anyfile.Bloom] = b
	cf := counting.MustNew(counting.Config{N: 1000, P: 0.01})
	cf.Add([]byte(url))
	out[anyfile.Counting] = bytesOf(t, cf)
	sd, err := squid.New(100, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := sd.Add(squid.GET, url); err != nil {
		t.Fatal(err)
	}
	out[anyfile.Squid] = bytesOf(t, sd)
	next := bf.Clone()
	next.Add([]byte("another"))
	if out[anyfile.Delta], err = digest.Diff(&digest.Digest{Bloom: bf, Sequence: 7}, &digest.Digest{Bloom: next, Sequence: 8}, digest.Raw); err != nil {
		t.Fatal(err)
	}
	del, err := counting.NewDeletion(bloom.Config{N: 1000, P: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	del.Add([]byte(url))
	out[anyfile.Deletion] = bytesOf(t, del)
	set := fpset.MustNew(fpset.Config{N: 100})
	set.Add([]byte(url))
	out[anyfile.FPSet] = bytesOf(t, set)
	bl, err := bloomier.Build(bloomier.Config{ValueBits: 4}, [][]byte{[]byte(url)}, []uint64{3})
	if err != nil {
		t.Fatal(err)
	}
	out[anyfile.Bloomier] = bytesOf(t, bl)
	tab := mht.MustNew(mht.Config{First: 64, Levels: 3})
	if err := tab.Insert(tab.Hash([]byte(url)), 1); err != nil {
		t.Fatal(err)
	}
	out[anyfile.MHT] = bytesOf(t, tab)
	return out
}

// TestReadEveryKind reads one file of each kind: Read names the kind,
// and the key put in it is found (a delta answers nothing).
func TestReadEveryKind(t *testing.T) {
	for kind, b := range files(t) {
		f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		if f.Kind() != kind || f.Size != int64(len(b)) {
			t.Errorf("%v: read as %v, %d bytes of %d", kind, f.Kind(), f.Size, len(b))
		}
		in, err := f.Contains([]byte(url))
		if kind == anyfile.Delta {
			if err == nil {
				t.Error("a delta answered a query")
			}
			continue
		}
		if err != nil || !in {
			t.Errorf("%v: Contains(url) = %t, %v", kind, in, err)
		}
	}
}

// TestWriteBackKeepsKind: what Read read, WriteTo writes byte for byte,
// for every kind that is written back; the others refuse.
func TestWriteBackKeepsKind(t *testing.T) {
	for kind, b := range files(t) {
		f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		_, err = f.WriteTo(&out)
		switch kind {
		case anyfile.Bloom, anyfile.Counting, anyfile.Squid, anyfile.Deletion:
			if err != nil || !bytes.Equal(out.Bytes(), b) {
				t.Errorf("%v: written back differs (%d bytes, was %d), err %v", kind, out.Len(), len(b), err)
			}
		default:
			if err == nil {
				t.Errorf("%v: written back", kind)
			}
		}
	}
}

// TestReadErrors: empty input, a wrong magic number and bytes after the
// frame are refused with their errors.
func TestReadErrors(t *testing.T) {
	good := files(t)[anyfile.Bloom]
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, anyfile.ErrEmpty},
		{"junk", []byte("junk"), anyfile.ErrMagic},
		{"trailing", append(append([]byte(nil), good...), 'x'), anyfile.ErrTrailing},
	} {
		_, err := anyfile.Read(bytes.NewReader(c.in), anyfile.Options{})
		var ae *anyfile.Error
		if !errors.Is(err, c.want) || !errors.As(err, &ae) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := anyfile.Read(bytes.NewReader(good[:len(good)-3]), anyfile.Options{}); err == nil {
		t.Error("a truncated frame was read")
	}
}

// TestPieces reads a digest coded in pieces lazily: queries decode only
// pieces, Add decodes it whole, and it is written back in pieces.
func TestPieces(t *testing.T) {
	bf := newBloom(t)
	b, err := digest.EncodePieces(&digest.Digest{Bloom: bf}, digest.Arith, 64)
	if err != nil {
		t.Fatal(err)
	}
	f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{LazyPieces: true})
	if err != nil {
		t.Fatal(err)
	}
	if as[*bloom.Filter](f) != nil || as[*digest.Pieces](f) == nil || f.Kind() != anyfile.Bloom || f.Codec() != digest.Arith {
		t.Fatalf("lazy pieces: Bloom %v, View %v, kind %v, codec %v", as[*bloom.Filter](f) != nil, as[*digest.Pieces](f) != nil, f.Kind(), f.Codec())
	}
	if in, err := f.Contains([]byte(url)); !in || err != nil {
		t.Errorf("Contains: %t, %v", in, err)
	}
	if err := f.Add([]byte("new")); err != nil || as[*bloom.Filter](f) == nil {
		t.Fatalf("Add: %v", err)
	}
	out := bytesOf(t, f)
	g, err := anyfile.Read(bytes.NewReader(out), anyfile.Options{})
	if err != nil || as[*digest.Pieces](g) == nil || as[*digest.Pieces](g).PieceBytes() != as[*digest.Pieces](f).PieceBytes() {
		t.Fatalf("written back: err %v, not in pieces of the same size", err)
	}
	if in, _ := g.Contains([]byte("new")); !in {
		t.Error("the key added is not in the file written")
	}
}

// TestCombine: union and intersection of one kind, merged counting
// filters, and the refusals.
func TestCombine(t *testing.T) {
	read := func(b []byte) *anyfile.File {
		f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	fs := files(t)
	a := read(fs[anyfile.Bloom])
	other := newBloom(t)
	other.Add([]byte("only in b"))
	b := read(bytesOf(t, other))
	if err := a.Union(b); err != nil {
		t.Fatal(err)
	}
	if in, _ := a.Contains([]byte("only in b")); !in || a.Header.Sequence != 7 {
		t.Errorf("union: key of b %t, sequence %d", in, a.Header.Sequence)
	}
	c := read(fs[anyfile.Bloom])
	if err := c.Intersect(read(fs[anyfile.Bloom])); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(a.Union(read(fs[anyfile.Counting])), anyfile.ErrKinds) {
		t.Error("a Bloom filter combined with a counting filter")
	}
	cf := read(fs[anyfile.Counting])
	if err := cf.Union(read(fs[anyfile.Counting])); err != nil || as[*counting.Filter](cf).Count([]byte(url)) != 2 {
		t.Errorf("counting union: %v, count %d", err, as[*counting.Filter](cf).Count([]byte(url)))
	}
	if cf.Intersect(read(fs[anyfile.Counting])) == nil {
		t.Error("counting filters intersected")
	}
	sq := read(fs[anyfile.Squid])
	if err := sq.Union(read(fs[anyfile.Squid])); err != nil || as[*squid.Digest](sq).Header.Count != 1 {
		t.Errorf("squid union: %v, count %d", err, as[*squid.Digest](sq).Header.Count)
	}
	if read(fs[anyfile.FPSet]).Union(read(fs[anyfile.FPSet])) == nil {
		t.Error("fingerprint sets combined")
	}
	small, err := bloom.New(bloom.Config{Layout: bloom.Blocked, N: 10, P: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Union(read(bytesOf(t, small))); err == nil {
		t.Error("filters of two shapes combined")
	}
}

// TestFold: a Bloom filter folds; counting filters and Squid digests
// refuse.
func TestFold(t *testing.T) {
	fs := files(t)
	f, err := anyfile.Read(bytes.NewReader(fs[anyfile.Bloom]), anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := as[*bloom.Filter](f).M()
	if err := f.Fold(0); err != nil || as[*bloom.Filter](f).M() != m/2 {
		t.Fatalf("fold: %v, m %d of %d", err, as[*bloom.Filter](f).M(), m)
	}
	if in, _ := f.Contains([]byte(url)); !in {
		t.Error("folding lost the key")
	}
	for _, k := range []anyfile.Kind{anyfile.Counting, anyfile.Squid} {
		g, err := anyfile.Read(bytes.NewReader(fs[k]), anyfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if g.Fold(0) == nil || g.Foldable() == nil {
			t.Errorf("%v folded", k)
		}
	}
}

// TestAdd: every kind that takes keys takes them; a Squid digest only
// URLs.
func TestAdd(t *testing.T) {
	for kind, b := range files(t) {
		f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = f.Add([]byte("http://example.com/new"))
		switch kind {
		case anyfile.Bloom, anyfile.Counting, anyfile.Squid, anyfile.Deletion:
			if err != nil {
				t.Errorf("%v: Add: %v", kind, err)
			}
			g, err := anyfile.Read(bytes.NewReader(bytesOf(t, f)), anyfile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if in, _ := g.Contains([]byte("http://example.com/new")); !in {
				t.Errorf("%v: the key added is not in the file written", kind)
			}
		default:
			if err == nil {
				t.Errorf("%v took a key", kind)
			}
		}
	}
	f, _ := anyfile.Read(bytes.NewReader(files(t)[anyfile.Squid]), anyfile.Options{})
	if f.Add([]byte("not a url")) == nil {
		t.Error("a Squid digest took a key that is not a URL")
	}
}

// TestZeroFile: a File that holds nothing answers with errors.
func TestZeroFile(t *testing.T) {
	var f anyfile.File
	if _, err := f.Contains([]byte("x")); err == nil {
		t.Error("zero File: Contains without error")
	}
	if f.Add([]byte("x")) == nil || f.Union(&f) == nil || f.Fold(0) == nil || f.Digest() != nil || f.Kind() != 0 {
		t.Error("zero File: a method succeeded")
	}
	if _, err := f.WriteTo(io.Discard); err == nil {
		t.Error("zero File: WriteTo without error")
	}
	var nilFile *anyfile.File
	if nilFile.Kind() != 0 || nilFile.PayloadBytes() != 0 {
		t.Error("nil File: a kind or a payload")
	}
}

// TestUpdateConcurrent runs 16 Updates of one file at once, each adding
// its key: every key is in the result, and the file keeps its mode.
func TestUpdateConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.bf")
	if err := os.WriteFile(path, files(t)[anyfile.Counting], 0o640); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- anyfile.Update(path, anyfile.Options{}, func(f *anyfile.File) error {
				return f.Add([]byte(fmt.Sprint("key", i)))
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := anyfile.ReadFile(path, anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind() != anyfile.Counting || as[*counting.Filter](f).Len() != 17 {
		t.Errorf("after 16 updates: %v with %d keys, want a counting filter with 17", f.Kind(), as[*counting.Filter](f).Len())
	}
	if fi, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after updates: %v, %v", fi.Mode(), err)
	}
}

// TestUpdateRefused: an Update whose change fails, of a file that is not
// a filter, or of a read-only file leaves the file as it was.
func TestUpdateRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.bf")
	orig := files(t)[anyfile.FPSet]
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := anyfile.Update(path, anyfile.Options{}, func(f *anyfile.File) error { return f.Add([]byte("x")) }); err == nil {
		t.Error("a fingerprint set took a key")
	}
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := anyfile.Update(junk, anyfile.Options{}, func(*anyfile.File) error { return nil }); !errors.Is(err, anyfile.ErrMagic) {
		t.Errorf("junk: %v", err)
	}
	ro := filepath.Join(dir, "ro.bf")
	if err := os.WriteFile(ro, files(t)[anyfile.Bloom], 0o444); err != nil {
		t.Fatal(err)
	}
	called := false
	if err := anyfile.Update(ro, anyfile.Options{}, func(*anyfile.File) error { called = true; return nil }); err == nil || called {
		t.Errorf("read-only file: err %v, change called %t", err, called)
	}
	for p, want := range map[string][]byte{path: orig, junk: []byte("junk")} {
		if b, _ := os.ReadFile(p); !bytes.Equal(b, want) {
			t.Errorf("%s changed", p)
		}
	}
}

func TestKindString(t *testing.T) {
	if anyfile.Squid.String() != "Squid cache digest" || anyfile.Kind(0).String() != "Kind(0)" || anyfile.Kind(99).String() != "Kind(99)" {
		t.Error(anyfile.Squid, anyfile.Kind(0), anyfile.Kind(99))
	}
}
