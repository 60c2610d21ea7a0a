package keyfile_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/keyfile"
	"github.com/klauspost/compress/zstd"
)

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func zstded(t *testing.T, s string) string {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return string(enc.EncodeAll([]byte(s), nil))
}

// scanAll returns the keys and their line numbers, and the scanner's
// error.
func scanAll(t *testing.T, in string, opt keyfile.Options) (keys []string, lines []int, binary bool, err error) {
	t.Helper()
	s, err := keyfile.NewScanner(strings.NewReader(in), opt)
	if err != nil {
		return nil, nil, false, err
	}
	defer s.Close()
	for s.Scan() {
		keys = append(keys, string(s.Key()))
		lines = append(lines, s.Line())
	}
	return keys, lines, s.Binary(), s.Err()
}

// TestScanner reads plain, gzip and zstd text: the same keys, with their
// line numbers, "\r\n" endings dropped and empty lines skipped.
func TestScanner(t *testing.T) {
	text := "a\r\n\nbb\nc c\r\n\r\nd"
	want, wantLines := []string{"a", "bb", "c c", "d"}, []int{1, 3, 4, 6}
	for name, in := range map[string]string{"plain": text, "gzip": gzipped(t, text), "zstd": zstded(t, text)} {
		keys, lines, binary, err := scanAll(t, in, keyfile.Options{})
		if err != nil || fmt.Sprint(keys) != fmt.Sprint(want) || fmt.Sprint(lines) != fmt.Sprint(wantLines) || binary {
			t.Errorf("%s: keys %q at lines %v, binary %t, err %v; want %q at %v", name, keys, lines, binary, err, want, wantLines)
		}
	}
}

// TestTooLong checks the line limit on both sides of the scanner's
// buffer: a line one byte too long, and one far too long.
func TestTooLong(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  uint64
		line int
	}{
		{"abc\nabcdef\n", 5, 2},
		{"abc\r\nabcdef\r\n", 5, 2},
		{"abc\n" + strings.Repeat("x", 100) + "\n", 5, 2},
		{"a\n" + strings.Repeat("k", keyfile.DefaultMaxKeyBytes+1) + "\n", 0, 2},
	} {
		_, _, _, err := scanAll(t, c.in, keyfile.Options{MaxKeyBytes: c.max})
		var le *keyfile.LineError
		var tl *keyfile.TooLongError
		wantMax := int(c.max)
		if c.max == 0 {
			wantMax = keyfile.DefaultMaxKeyBytes
		}
		if !errors.As(err, &le) || le.Line != c.line || !errors.As(err, &tl) || tl.Max != wantMax {
			t.Errorf("max %d, %d-byte input: err %v; want line %d, too long past %d", c.max, len(c.in), err, c.line, wantMax)
		}
	}
	if keys, _, _, err := scanAll(t, "abc\nabcdef\r\n", keyfile.Options{MaxKeyBytes: 6}); err != nil || len(keys) != 2 {
		t.Errorf("a line of exactly the limit: keys %q, err %v", keys, err)
	}
}

// TestBinary: NUL bytes in the first 4 KiB of the text (after
// decompression) are reported, later ones are not.
func TestBinary(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     bool
	}{
		{"early NUL", "a\x00b\nc\n", true},
		{"late NUL", strings.Repeat("k\n", keyfile.BinaryWindow/2+50) + "\x00\n", false},
		{"NUL in gzip", gzipped(t, "\x00\x01\x02"), true},
		{"text", "abc\n", false},
	} {
		if _, _, binary, err := scanAll(t, c.in, keyfile.Options{}); err != nil || binary != c.want {
			t.Errorf("%s: binary %t, err %v; want %t", c.name, binary, err, c.want)
		}
	}
}

// TestBadCompressed: a truncated gzip stream is an error, not keys.
func TestBadCompressed(t *testing.T) {
	in := gzipped(t, strings.Repeat("http://x/key\n", 100))[:40]
	if _, _, _, err := scanAll(t, in, keyfile.Options{}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated gzip: err %v, want unexpected EOF", err)
	}
	if _, err := keyfile.NewScanner(strings.NewReader("\x1f\x8b\x00"), keyfile.Options{}); err == nil {
		t.Error("a gzip header cut short: no error")
	}
}

// rawZstdFrame returns a zstd frame (RFC 8878 §3.1.1) whose header
// declares a window of 2^windowLog bytes and whose one block holds text
// as it is (a raw block, the last): what a hostile file of a few bytes
// can declare, whatever it holds.
func rawZstdFrame(windowLog uint, text string) string {
	// Magic; frame header descriptor 0 (no single segment, no content
	// size, no checksum, no dictionary), so a window descriptor follows:
	// exponent windowLog−10, mantissa 0.
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, byte(windowLog-10) << 3}
	header := 1 | uint32(len(text))<<3 // last block, raw, its size
	frame = append(frame, byte(header), byte(header>>8), byte(header>>16))
	return string(append(frame, text...))
}

// TestZstdWindowBounded: a zstd key file may declare a window up to
// MaxZstdWindow, which the decoder allocates before the first key; a
// larger one is refused, with an error that says so, before anything of
// that size is allocated.
func TestZstdWindowBounded(t *testing.T) {
	if keyfile.MaxZstdWindow != 1<<27 {
		t.Fatalf("MaxZstdWindow %d, want 2^27, the reference decoder's default limit", keyfile.MaxZstdWindow)
	}
	for _, log := range []uint{10, 27} {
		keys, _, _, err := scanAll(t, rawZstdFrame(log, "a\nbc\n"), keyfile.Options{})
		if err != nil || fmt.Sprint(keys) != "[a bc]" {
			t.Errorf("window 2^%d: keys %q, err %v", log, keys, err)
		}
	}
	for _, log := range []uint{28, 29, 31} {
		keys, _, _, err := scanAll(t, rawZstdFrame(log, "a\nbc\n"), keyfile.Options{})
		if len(keys) != 0 || !errors.Is(err, zstd.ErrWindowSizeExceeded) || !strings.Contains(err.Error(), "over 128 MiB") {
			t.Errorf("window 2^%d: keys %q, err %v; want the window refused", log, keys, err)
		}
	}
}

// TestZeroScanner: a Scanner not made by NewScanner scans nothing and
// says why.
func TestZeroScanner(t *testing.T) {
	var s keyfile.Scanner
	if s.Scan() || !errors.Is(s.Err(), keyfile.ErrNotOpen) {
		t.Errorf("zero Scanner: Scan true or err %v", s.Err())
	}
	s.Close()
}

func TestDistinct(t *testing.T) {
	d := keyfile.NewDistinct(200_000)
	for i := range 300_000 {
		d.Add(hashing.SumString(fmt.Sprint(i % 150_000)))
	}
	if got, ok := d.Count(); !ok || got != 150_000 || d.Seen() != 300_000 {
		t.Errorf("count %d, %t, seen %d; want 150000, true, 300000", got, ok, d.Seen())
	}
	for i := range 100_000 {
		d.Add(hashing.SumString(fmt.Sprint("more", i)))
	}
	if got, ok := d.Count(); ok {
		t.Errorf("250000 distinct keys past a bound of 200000: count %d, true", got)
	}
	hs := []hashing.Hash128{hashing.SumString("a"), hashing.SumString("b"), hashing.SumString("a")}
	if n := keyfile.CountDistinct(hs); n != 2 {
		t.Errorf("CountDistinct of a, b, a: %d", n)
	}
	var zero keyfile.Distinct
	zero.Add(hashing.SumString("a"))
	if n, ok := zero.Count(); ok || zero.Seen() != 1 {
		t.Errorf("zero Distinct: count %d, %t, seen %d; want no count, 1 seen", n, ok, zero.Seen())
	}
}

// terminalReader gives its lines one read at a time, then reports the
// end of input once, as a terminal does for Ctrl-D; a read after that is
// what would wait for the user to type more.
type terminalReader struct {
	lines []string
	ended bool
}

var errReadAfterEnd = errors.New("read after the end of input: the user would have to press Ctrl-D again")

func (r *terminalReader) Read(p []byte) (int, error) {
	switch {
	case len(r.lines) > 0:
		n := copy(p, r.lines[0])
		r.lines = r.lines[1:]
		return n, nil
	case !r.ended:
		r.ended = true
		return 0, io.EOF
	}
	return 0, errReadAfterEnd
}

// TestTerminalEndsOnce: keys typed on a terminal end at the first Ctrl-D,
// however few bytes came before it.
func TestTerminalEndsOnce(t *testing.T) {
	s, err := keyfile.NewScanner(&terminalReader{lines: []string{"a\n", "b\n"}}, keyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for s.Scan() {
		keys = append(keys, string(s.Key()))
	}
	if err := s.Err(); err != nil || fmt.Sprint(keys) != "[a b]" {
		t.Fatalf("keys %q, err %v", keys, err)
	}
}
