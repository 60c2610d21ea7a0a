package unixcompress

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// RequireEnv makes the tests that run the real compress(1) fail, instead
// of skipping, when it is not installed: .ci/run installs Debian's
// ncompress and sets it.
const RequireEnv = "BLOOMCAST_REQUIRE_NCOMPRESS"

func decodeAll(t testing.TB, z []byte) []byte {
	t.Helper()
	r, err := NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// samples are inputs that fill the table at every width (text with
// repeats, random bytes that expand, a run that builds long strings).
func samples() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the summary cache shares compressed digests of every peer's contents so a miss goes to the peer that probably holds it")
	var text bytes.Buffer
	for text.Len() < 400_000 {
		text.WriteString(words[rng.IntN(len(words))])
		text.WriteByte(" \n"[rng.IntN(2)])
	}
	noise := make([]byte, 200_000)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	return map[string][]byte{
		"empty": {},
		"one":   {'x'},
		"kwkwk": []byte("abababababababababab"),
		"text":  text.Bytes(),
		"noise": noise,
		"run":   bytes.Repeat([]byte{'a'}, 300_000),
	}
}

func TestRoundTrip(t *testing.T) {
	for name, data := range samples() {
		for bits := uint(minBits); bits <= maxBits; bits++ {
			for _, mode := range []struct{ block, clear bool }{{false, false}, {true, false}, {true, true}} {
				got := decodeAll(t, testutil.UnixCompress(data, bits, mode.block, mode.clear))
				if !bytes.Equal(got, data) {
					t.Fatalf("%s, %d bits, %+v: decoded %d bytes, want %d", name, bits, mode, len(got), len(data))
				}
			}
		}
	}
}

// TestReadsRealCompress decodes what Debian's ncompress writes at every
// maximum width from 10 to 16 (its CLEARs included), and the golden file
// without it. (Its -b 9 streams, which keep 9-bit codes when the table
// fills, are read by neither its own -d nor gzip -d.)
func TestReadsRealCompress(t *testing.T) {
	golden, err := os.ReadFile("testdata/words.Z")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/words.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeAll(t, golden); !bytes.Equal(got, want) {
		t.Fatalf("testdata/words.Z decodes to %d bytes, want testdata/words.txt's %d", len(got), len(want))
	}
	bin := binary(t, "compress")
	for name, data := range samples() {
		for bits := minBits + 1; bits <= maxBits; bits++ {
			cmd := exec.Command(bin, "-c", "-f", "-b", strconv.Itoa(bits))
			cmd.Stdin = bytes.NewReader(data)
			z, err := cmd.Output()
			if err != nil {
				t.Fatalf("compress -b %d: %v", bits, err)
			}
			if got := decodeAll(t, z); !bytes.Equal(got, data) {
				t.Fatalf("%s at -b %d: decoded %d bytes, want %d", name, bits, len(got), len(data))
			}
		}
	}
}

// TestTestEncoderAgreesWithGzip checks the test encoder with gzip -d,
// which reads compress's format, so the round trips test the reader
// against the format and not against the encoder's own reading of it.
func TestTestEncoderAgreesWithGzip(t *testing.T) {
	bin := binary(t, "gzip")
	for name, data := range samples() {
		for _, bits := range []uint{9, 10, 12, 16} {
			for _, mode := range []struct{ block, clear bool }{{false, false}, {true, true}} {
				cmd := exec.Command(bin, "-d", "-c")
				cmd.Stdin = bytes.NewReader(testutil.UnixCompress(data, bits, mode.block, mode.clear))
				got, err := cmd.Output()
				if err != nil && len(data) > 0 {
					t.Fatalf("%s, %d bits, %+v: gzip -d: %v", name, bits, mode, err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("%s, %d bits, %+v: gzip -d gives %d bytes, want %d", name, bits, mode, len(got), len(data))
				}
			}
		}
	}
}

func TestHostile(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"short header", []byte{magic0, magic1}, io.ErrUnexpectedEOF},
		{"gzip magic", []byte{0x1f, 0x8b, 0x08}, ErrHeader},
		{"width 8", []byte{magic0, magic1, 0x88}, ErrHeader},
		{"width 17", []byte{magic0, magic1, 0x91}, ErrHeader},
		{"reserved flag", []byte{magic0, magic1, 0xb0}, ErrHeader},
		{"first code 257", append([]byte{magic0, magic1, 0x90}, 0x01, 0x03), ErrCorrupt},
		{"code beyond the table", append([]byte{magic0, magic1, 0x90}, 'a', 0x06, 0x02), ErrCorrupt},
	} {
		r, err := NewReader(bytes.NewReader(c.in))
		if err == nil {
			_, err = io.ReadAll(r)
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// A read error reaches the caller, not an early io.EOF.
	z := testutil.UnixCompress(samples()["text"], 16, true, false)
	r, err := NewReader(io.MultiReader(bytes.NewReader(z[:1000]), iotest.ErrReader(io.ErrClosedPipe)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(r); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("read error: %v", err)
	}
}

// TestReaderBounded reads a stream made of the longest strings LZW can
// build: memory stays within the table, however much it decodes.
func TestReaderBounded(t *testing.T) {
	z := testutil.UnixCompress(bytes.Repeat([]byte{0}, 20<<20), 16, true, false)
	r, err := NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, iotest.OneByteReader(r))
	if err != nil || n != 20<<20 {
		t.Fatalf("%d, %v", n, err)
	}
	if c := cap(r.stack) + cap(r.prefix)*2 + cap(r.suffix); c > 1<<18+1 {
		t.Errorf("the reader holds %d bytes", c)
	}
}

func FuzzReader(f *testing.F) {
	for _, data := range samples() {
		if len(data) < 1000 {
			f.Add(testutil.UnixCompress(data, 9, true, true))
		}
	}
	f.Add(testutil.UnixCompress([]byte(strings.Repeat("fuzz me ", 200)), 9, false, false))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			return
		}
		// The output is bounded by the codes: 2^16 bytes per 9 bits.
		n, _ := io.Copy(io.Discard, r)
		if bound := int64(len(in)) * 8 / 9 * (1 << 16); n > bound {
			t.Fatalf("%d bytes from %d", n, len(in))
		}
		// Whatever decodes, re-encodes to the same bytes.
		data := in[3:]
		if len(data) > 4096 {
			data = data[:4096]
		}
		for _, bits := range []uint{9, 16} {
			if got := decodeAll(t, testutil.UnixCompress(data, bits, in[2]&1 == 0, true)); !bytes.Equal(got, data) {
				t.Fatalf("round trip of %x at %d bits gives %x", data, bits, got)
			}
		}
	})
}

func binary(t *testing.T, name string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("%s is set but %s is not installed", RequireEnv, name)
		}
		t.Skipf("%s not installed (apt-get install ncompress gzip); .ci/run runs this test", name)
	}
	return bin
}
