package anyfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/params"
)

// buildKeys builds a filter of kind holding keys, sized for 1000 keys.
func buildKeys(kind anyfile.Kind, keys ...string) (*anyfile.File, error) {
	b, err := anyfile.NewBuilder(anyfile.BuildConfig{Kind: kind, Query: params.Query{N: 1000, P: 0.01}})
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		b.Add([]byte(k))
	}
	f, _, err := b.Finish()
	return f, err
}

func built(t testing.TB, kind anyfile.Kind, keys ...string) *anyfile.File {
	t.Helper()
	f, err := buildKeys(kind, keys...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func reread(t testing.TB, b []byte) *anyfile.File {
	t.Helper()
	f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Send a new version of a filter as a delta and apply it at the other
// end.
func ExampleDiff() {
	v1, err := buildKeys(anyfile.Bloom, "a", "b")
	if err != nil {
		fmt.Println(err)
		return
	}
	v2, err := buildKeys(anyfile.Bloom, "a", "b", "c")
	if err != nil {
		fmt.Println(err)
		return
	}
	delta, err := anyfile.Diff(v1, v2, digest.Auto)
	if err != nil {
		fmt.Println(err)
		return
	}
	next, err := v1.Patch(delta, envelope.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	b2, _ := anyfile.As[*bloom.Filter](v2)
	fmt.Println("sequence", next.Sequence, "c:", next.Bloom.Contains([]byte("c")), "equal:", next.Bloom.Equal(b2))
	// Output:
	// sequence 1 c: true equal: true
}

func TestRecodeDiffPatch(t *testing.T) {
	f := built(t, anyfile.Bloom, "x", "y")
	for _, c := range []struct {
		codec  digest.Codec
		pieces int
	}{{digest.Raw, 0}, {digest.Arith, 0}, {digest.Fast, 0}, {digest.Fast, 256}, {digest.Arith, 64}} {
		b, err := f.Recode(c.codec, 7, c.pieces)
		if err != nil {
			t.Fatal(c, err)
		}
		g := reread(t, b)
		if g.Header.Sequence != 7 || !as[*bloom.Filter](g).Equal(as[*bloom.Filter](f)) || (c.pieces > 0) != (as[*digest.Pieces](g) != nil) {
			t.Errorf("%v: sequence %d, equal %v, view %v", c, g.Header.Sequence, as[*bloom.Filter](g).Equal(as[*bloom.Filter](f)), as[*digest.Pieces](g) != nil)
		}
	}
	cf := built(t, anyfile.Counting, "x")
	if _, err := cf.Recode(digest.Fast, 0, 256); err == nil {
		t.Error("a counting filter coded in pieces")
	}
	del := built(t, anyfile.Deletion, "x")
	if _, err := del.Recode(digest.Raw, 0, 0); err == nil {
		t.Error("a deletion filter recoded as a digest")
	}
	if _, err := anyfile.Diff(f, del, digest.Raw); err == nil {
		t.Error("a delta to a deletion filter")
	}
	other := built(t, anyfile.Bloom, "z")
	delta, err := anyfile.Diff(f, other, digest.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Patch(delta, envelope.Limits{}); !errors.Is(err, digest.ErrBase) {
		t.Errorf("a delta applied to another base: %v", err)
	}
	if _, err := del.Patch(delta, envelope.Limits{}); err == nil {
		t.Error("a deletion filter patched")
	}
}
