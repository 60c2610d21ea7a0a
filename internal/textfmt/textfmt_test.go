package textfmt_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/textfmt"
)

func ExampleTable() {
	var t textfmt.Table
	t.Add("layout", "m", "rate")
	t.Add("blocked", "9728", textfmt.Rate(0.0101))
	t.Add("classic", "9586", textfmt.Rate(0.01))
	_, _ = t.WriteTo(os.Stdout)
	// Output:
	// layout      m     rate
	// blocked  9728  0.01010
	// classic  9586  0.01000
}

func ExampleKeyValues() {
	var kv textfmt.KeyValues
	kv.Add("m", "9728 bits")
	kv.Add("fill ratio", "0.4812")
	_, _ = kv.WriteTo(os.Stdout)
	// Output:
	// m           9728 bits
	// fill ratio  0.4812
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{textfmt.Rate(1e-6), "1.000e-06"},
		{textfmt.Rate(0.009995), "0.009995"},
		{textfmt.Bytes(512), "512 B"},
		{textfmt.Percent(0.125), "12.5%"},
		{textfmt.Wrap("a  bb ccc\ndddd é", 6), "a bb\nccc\ndddd é"},
		{textfmt.Wrap("abcdefgh ab", 4), "abcdefgh\nab"},
		{textfmt.Bytes(1536), "1.5 KiB"},
		{textfmt.Bytes(3 << 30), "3.0 GiB"},
		{textfmt.Count(950), "950"},
		{textfmt.Count(1234), "1.23k"},
		{textfmt.Count(4.5e6), "4.5M"},
		{textfmt.Count(7e9), "7G"},
		{textfmt.Float(1.23456, 3), "1.235"},
		{textfmt.Seconds(0.25), "250ms"},
		{textfmt.Share(0), "0%"},
		{textfmt.Share(0.0000123), "0.0012%"},
		{textfmt.Share(0.0345), "3.45%"},
		{textfmt.Share(0.125), "12.5%"},
		{textfmt.Seconds(3723.4), "1h2m3s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestTableUnicodeAndRagged(t *testing.T) {
	var tb textfmt.Table
	tb.Add("σ", "1")
	tb.Add("ab", "22", "3")
	var b strings.Builder
	if _, err := tb.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if want := "σ    1\nab  22  3\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriterKeepsFirstError(t *testing.T) {
	fw := &failWriter{}
	w := textfmt.NewWriter(fw)
	w.Printf("a %d\n", 1)
	w.Println("b")
	var kv textfmt.KeyValues
	kv.Add("c", "d")
	w.Write(kv)
	if w.Err() == nil || fw.n != 1 {
		t.Errorf("err %v after %d writes, want the first write's error and no more writes", w.Err(), fw.n)
	}
	var b strings.Builder
	w = textfmt.NewWriter(&b)
	w.Printf("x=%d\n", 2)
	w.Println("y")
	w.Write(kv)
	if w.Err() != nil || b.String() != "x=2\ny\nc  d\n" {
		t.Errorf("got %q, %v", b.String(), w.Err())
	}
}
