package anyfile_test

import (
	"reflect"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
	"github.com/bloomcast/bloomcast/formats/guava"
	"github.com/bloomcast/bloomcast/formats/parquet"
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/scalable"
)

// member is what every filter of the module answers to for membership.
type member interface{ Contains(key []byte) bool }

// TestOneVocabulary: every filter type of the module adds with Add and
// answers membership with Contains, whatever its own program calls them
// (the foreign names stay as aliases).
func TestOneVocabulary(t *testing.T) {
	for _, v := range []any{
		(*bloom.Filter)(nil), (*bloom.Concurrent)(nil), (*counting.Filter)(nil), (*counting.DeletionFilter)(nil),
		(*scalable.Filter)(nil), (*scalable.Concurrent)(nil), (*fpset.Set)(nil),
		(*guava.Filter)(nil), (*bitsandblooms.Filter)(nil), (*parquet.Filter)(nil),
	} {
		typ := reflect.TypeOf(v)
		if _, ok := v.(member); !ok {
			t.Errorf("%v has no Contains(key []byte) bool", typ)
		}
		add, ok := typ.MethodByName("Add")
		if !ok || add.Type.NumIn() != 2 || add.Type.In(1) != reflect.TypeOf([]byte(nil)) {
			t.Errorf("%v has no Add(key []byte)", typ)
		}
	}
	// The foreign names stay.
	for _, c := range []struct {
		v     any
		names []string
	}{
		{(*guava.Filter)(nil), []string{"Test", "TestString", "TestLong"}},
		{(*bitsandblooms.Filter)(nil), []string{"Test"}},
		{(*parquet.Filter)(nil), []string{"Insert", "Check"}},
		{(*parquet.Fit)(nil), []string{"Insert", "Add"}},
	} {
		for _, n := range c.names {
			if _, ok := reflect.TypeOf(c.v).MethodByName(n); !ok {
				t.Errorf("%T lost %s", c.v, n)
			}
		}
	}
}
