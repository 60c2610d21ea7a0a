package counting

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
)

func TestDeletionFilter(t *testing.T) {
	d, err := NewDeletion(bloom.Config{Layout: bloom.Blocked, N: 2000, P: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		d.AddString(key(i))
	}
	for i := 0; i < 2000; i += 2 {
		d.RemoveString(key(i))
	}
	// Removed keys are absent; kept keys are present except where the
	// removed filter has a false positive (about 1% of them here).
	falseNeg := 0
	for i := range 2000 {
		switch in := d.ContainsString(key(i)); {
		case i%2 == 0 && in:
			t.Fatalf("removed key %d still present", i)
		case i%2 == 1 && !in:
			falseNeg++
		}
	}
	if falseNeg > 30 {
		t.Errorf("%d of 1000 kept keys reported absent, want about 1%%", falseNeg)
	}
	t.Logf("false negatives: %d of 1000 kept keys", falseNeg)
	// Removal is forever.
	d.Add([]byte(key(0)))
	if d.Contains([]byte(key(0))) {
		t.Error("a removed key came back")
	}
	d.Remove([]byte("never added"))
	if d.Added().Count() != 2001 || d.Removed().Count() != 1001 {
		t.Errorf("counts %d, %d", d.Added().Count(), d.Removed().Count())
	}
	// The error is this package's, and still says what bloom refused.
	_, err = NewDeletion(bloom.Config{})
	if !errors.Is(err, ErrConfig) || !errors.Is(err, bloom.ErrConfig) || !strings.HasPrefix(fmt.Sprint(err), "counting: ") {
		t.Errorf("empty configuration: %v, want a counting: ErrConfig wrapping bloom.ErrConfig", err)
	}
}
