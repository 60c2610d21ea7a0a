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

func flagString(v uint64) string {
	c := Count(v)
	return c.String()
}
