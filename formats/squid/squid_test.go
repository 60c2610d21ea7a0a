package squid

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestCanonicalURL(t *testing.T) {
	cases := map[string]string{
		"http://www.example.com/":             "http://www.example.com/",
		"HTTP://WWW.Example.COM:80/A/B?Q=1":   "http://www.example.com/A/B?Q=1",
		"http://example.com":                  "http://example.com/",
		"http://example.com?x":                "http://example.com/?x",
		"https://example.com:443/x":           "https://example.com/x",
		"https://example.com:8443/x":          "https://example.com:8443/x",
		"http://user:pw@example.com/%7Ea/../": "http://example.com/%7Ea/../",
		"ftp://user@FTP.example.com:21/f":     "ftp://user@ftp.example.com/f",
		"http://[2001:DB8::1]:8080/":          "http://[2001:db8::1]:8080/",
		"http://[2001:db8::1]:80/":            "http://[2001:db8::1]/",
	}
	for in, want := range cases {
		if got, err := CanonicalURL(in); err != nil || got != want {
			t.Errorf("CanonicalURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "example.com/x", "://x", "http:///path"} {
		if _, err := CanonicalURL(bad); err == nil {
			t.Errorf("CanonicalURL(%q) accepted", bad)
		}
	}
}

func TestStoreKeyIsMD5OfMethodAndURL(t *testing.T) {
	key, err := StoreKey(GET, "http://WWW.example.com:80/")
	if err != nil {
		t.Fatal(err)
	}
	if want := md5.Sum([]byte("\x01http://www.example.com/")); key != want {
		t.Fatalf("GET key %x, want %x", key, want)
	}
	head, _ := StoreKey(HEAD, "http://www.example.com/")
	if want := md5.Sum([]byte("\x04http://www.example.com/")); head != want {
		t.Fatalf("HEAD key %x, want %x", head, want)
	}
}

// The four bits of a key are its big-endian words modulo mask_size·8,
// at mask[b>>3] bit b&7, exactly as Squid's CacheDigest.cc sets them.
func TestBitPositionsMatchSquid(t *testing.T) {
	d, err := New(1000, 5)
	if err != nil {
		t.Fatal(err)
	}
	if d.Header.MaskSize != 625 || d.Filter.M() != 5000 {
		t.Fatalf("mask %d bytes, m %d", d.Header.MaskSize, d.Filter.M())
	}
	key, _ := StoreKey(GET, "http://www.squid-cache.org/Doc/")
	d.AddKey(key)
	body, _ := d.MarshalBinary()
	mask := body[HeaderSize:]
	want := make([]byte, len(mask))
	for i := 0; i < 4; i++ {
		b := binary.BigEndian.Uint32(key[4*i:]) % (625 * 8)
		want[b>>3] |= 1 << (b & 7)
	}
	if !bytes.Equal(mask, want) {
		t.Fatal("mask bits differ from Squid's derivation")
	}
}

func goldenDigest(t testing.TB) *Digest {
	d, err := New(64, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if err := d.Add(GET, fmt.Sprintf("http://example.com/object/%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	d.Header.DelCount = 3
	return d
}

func TestGoldenAndRoundTrip(t *testing.T) {
	d := goldenDigest(t)
	body, _ := d.MarshalBinary()
	if len(body) != HeaderSize+40 {
		t.Fatalf("body of %d bytes", len(body))
	}
	if *update {
		os.WriteFile("testdata/digest-v5.bin", body, 0o644)
	}
	golden, err := os.ReadFile("testdata/digest-v5.bin")
	if err != nil || !bytes.Equal(golden, body) {
		t.Fatalf("encoding differs from testdata/digest-v5.bin (%v)", err)
	}
	wantHead := []byte{0, 5, 0, 3, 0, 0, 0, 64, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 40, 5, 4}
	if !bytes.Equal(body[:22], wantHead) || !bytes.Equal(body[22:HeaderSize], make([]byte, 106)) {
		t.Fatalf("header bytes % x", body[:22])
	}
	for _, decode := range []func([]byte) (*Digest, error){
		func(b []byte) (*Digest, error) { return Decode(b, Limits{}) },
		func(b []byte) (*Digest, error) { return Read(bytes.NewReader(b), Limits{}) },
	} {
		g, err := decode(body)
		if err != nil || g.Header != d.Header || !g.Filter.Equal(d.Filter) {
			t.Fatalf("round trip: %v", err)
		}
		for i := 0; i < 20; i++ {
			if ok, _ := g.Contains(GET, fmt.Sprintf("http://EXAMPLE.com:80/object/%d", i)); !ok {
				t.Fatalf("object %d lost", i)
			}
		}
	}
}

func TestDecodeValidates(t *testing.T) {
	body, _ := goldenDigest(t).MarshalBinary()
	edit := func(f func(b []byte)) []byte { b := bytes.Clone(body); f(b); return b }
	cases := map[string]struct {
		in   []byte
		want error
	}{
		"requires newer":  {edit(func(b []byte) { b[3] = 6 }), ErrVersion},
		"too old":         {edit(func(b []byte) { b[1] = 2; b[3] = 2 }), ErrVersion},
		"zero capacity":   {edit(func(b []byte) { b[7] = 0 }), ErrFormat},
		"negative mask":   {edit(func(b []byte) { b[16] = 0x80 }), ErrFormat},
		"mask mismatch":   {edit(func(b []byte) { b[19] = 41 }), ErrFormat},
		"hash functions":  {edit(func(b []byte) { b[21] = 3 }), ErrFormat},
		"zero bits/entry": {edit(func(b []byte) { b[20] = 0 }), ErrFormat},
		"short body":      {body[:len(body)-1], ErrFormat},
		"long body":       {append(bytes.Clone(body), 0), ErrFormat},
		"short header":    {body[:100], ErrFormat},
		"full":            {edit(func(b []byte) { copy(b[HeaderSize:], bytes.Repeat([]byte{0xff}, 40)) }), ErrUseless},
	}
	for name, c := range cases {
		if _, err := Decode(c.in, Limits{}); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := Decode(body, Limits{MaxMask: 39}); !errors.Is(err, ErrTooBig) {
		t.Errorf("limit: %v", err)
	}
	full := cases["full"].in
	if _, err := Decode(full, Limits{AllowFull: true}); err != nil {
		t.Errorf("AllowFull: %v", err)
	}
}

// A header claiming a 2 GiB mask must be refused before the mask is
// allocated or read.
func TestReadRefusesBeforeAllocating(t *testing.T) {
	head := (&Digest{Header: Header{Version: 5, RequiredVersion: 3, Capacity: 1<<31 - 1, MaskSize: MaskSize(1<<31-1, 8), BitsPerEntry: 8, HashFuncCount: 4}}).AppendHeader(nil)
	if _, err := Read(bytes.NewReader(head), Limits{}); !errors.Is(err, ErrTooBig) {
		t.Fatalf("err = %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	body, _ := goldenDigest(f).MarshalBinary()
	f.Add(body)
	f.Add(body[:HeaderSize])
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Decode(b, Limits{MaxMask: 1 << 16})
		if err != nil {
			return
		}
		again, _ := d.MarshalBinary()
		if !bytes.Equal(again[:22], b[:22]) || !bytes.Equal(again[HeaderSize:], b[HeaderSize:]) {
			t.Fatal("re-encoding differs")
		}
		d.ContainsKey([16]byte{1})
	})
}

func ExampleDigest() {
	d, _ := New(1000, 5)
	_ = d.Add(GET, "http://www.example.com/index.html")
	ok, _ := d.Contains(GET, "HTTP://www.EXAMPLE.com:80/index.html")
	body, _ := d.MarshalBinary()
	fmt.Println(ok, len(body))
	// Output: true 753
}

func TestCanonicalURLKeepsCanonical(t *testing.T) {
	raw := "http://origin.example:8080/obj-1?q"
	if n := testing.AllocsPerRun(100, func() {
		if got, err := CanonicalURL(raw); err != nil || got != raw {
			t.Fatalf("CanonicalURL(%q) = %q, %v", raw, got, err)
		}
	}); n != 0 {
		t.Errorf("CanonicalURL of a canonical URL allocates %v times", n)
	}
}

// TestReadShortStreamAllocatesWhatArrives: a header that claims a large
// mask, followed by a few bytes, fails as a mask that ends early, having
// allocated about what arrived rather than what the header claimed.
func TestReadShortStreamAllocatesWhatArrives(t *testing.T) {
	const capacity, bits = 1 << 30, 8 // a mask of 1 GiB
	d := &Digest{Header: Header{Version: 5, RequiredVersion: 3, Capacity: capacity,
		MaskSize: MaskSize(capacity, bits), BitsPerEntry: bits, HashFuncCount: HashFuncCount}}
	stream := append(d.AppendHeader(nil), make([]byte, 4096)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(bytes.NewReader(stream), Limits{MaxMask: 1<<31 - 1})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a 1 GiB mask cut after 4 KiB: err %v, want a mask that ends early", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("a 1 GiB mask cut after 4 KiB: %d bytes allocated", got)
	}
	// A whole digest still reads back as it was written.
	body, err := goldenDigest(t).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(body), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := got.MarshalBinary(); !bytes.Equal(again, body) {
		t.Error("a whole digest read back differs")
	}
}
