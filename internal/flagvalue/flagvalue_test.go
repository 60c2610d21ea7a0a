package flagvalue

import (
	"flag"
	"testing"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"0", 0}, {"4096", 4096}, {"0x10", 16}, {"1_000_000", 1000000}, {"1e6", 1000000}, {"18446744073709551615", 1<<64 - 1},
	} {
		var c Count
		if err := c.Set(tc.in); err != nil || uint64(c) != tc.want {
			t.Errorf("Set(%q) = %d, %v; want %d", tc.in, c, err, tc.want)
		}
		if got := c.String(); got != flagString(tc.want) {
			t.Errorf("String after Set(%q) = %q", tc.in, got)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "1e20", "x", "NaN"} {
		var c Count
		if err := c.Set(in); err == nil {
			t.Errorf("Set(%q) accepted: %d", in, c)
		}
	}
	var _ flag.Value = (*Count)(nil)
}

// TestCountTooLarge: a count above 2^64 - 1, however written, is said to
// be too large, naming the largest, not to be no whole number.
func TestCountTooLarge(t *testing.T) {
	for _, in := range []string{"1e20", "1e99", "1e999", "99999999999999999999", "18446744073709551616", "0x10000000000000000"} {
		var c Count
		if err := c.Set(in); err == nil || err.Error() != "too large: the largest is 18446744073709551615 (2^64 - 1)" {
			t.Errorf("Set(%q): %v", in, err)
		}
	}
	for _, in := range []string{"-1e99", "-1", "1.5"} {
		var c Count
		if err := c.Set(in); err == nil || err.Error() != "want a whole number ≥ 0" {
			t.Errorf("Set(%q): %v", in, err)
		}
	}
}

func flagString(v uint64) string {
	c := Count(v)
	return c.String()
}
