package icp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"net/netip"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

const goldenURL = "http://www.example.com/"

// The golden messages, laid out field by field as RFC 2186 §1–2 draws
// them, independently of the encoder.
var (
	goldenQueryBytes = concat(
		[]byte{0x01, 0x02, 0x00, 0x30},  // ICP_OP_QUERY, version 2, length 48
		[]byte{0x12, 0x34, 0x56, 0x78},  // request number
		[]byte{0x00, 0x00, 0x00, 0x00},  // options
		[]byte{0x00, 0x00, 0x00, 0x00},  // option data
		[]byte{0xc0, 0x00, 0x02, 0x01},  // sender host address 192.0.2.1
		[]byte{0x00, 0x00, 0x00, 0x00},  // requester host address (unspecified)
		[]byte(goldenURL), []byte{0x00}, // NUL-terminated URL
	)
	goldenHitBytes = concat(
		[]byte{0x02, 0x02, 0x00, 0x2c},  // ICP_OP_HIT, version 2, length 44
		[]byte{0x12, 0x34, 0x56, 0x78},  // request number, copied from the query
		[]byte{0x00, 0x00, 0x00, 0x00},  // options
		[]byte{0x00, 0x00, 0x00, 0x00},  // option data
		[]byte{0xc0, 0x00, 0x02, 0x02},  // sender host address 192.0.2.2
		[]byte(goldenURL), []byte{0x00}, // NUL-terminated URL, copied from the query
	)
	goldenQuery = Message{Opcode: OpQuery, Version: 2, RequestNumber: 0x12345678,
		Sender: netip.MustParseAddr("192.0.2.1"), URL: goldenURL}
	goldenHit = Message{Opcode: OpHit, Version: 2, RequestNumber: 0x12345678,
		Sender: netip.MustParseAddr("192.0.2.2"), URL: goldenURL}
)

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestGolden(t *testing.T) {
	for _, g := range []struct {
		file  string
		msg   Message
		bytes []byte
	}{
		{"testdata/query-v2.bin", goldenQuery, goldenQueryBytes},
		{"testdata/hit-v2.bin", goldenHit, goldenHitBytes},
	} {
		got, err := Encode(g.msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, g.bytes) {
			t.Fatalf("%s: encoder wrote\n% x\nRFC layout is\n% x", g.file, got, g.bytes)
		}
		if *update {
			if err := os.WriteFile(g.file, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		file, err := os.ReadFile(g.file)
		if err != nil || !bytes.Equal(file, got) {
			t.Fatalf("encoding differs from %s (%v)", g.file, err)
		}
		back, err := Decode(file, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", g.file, err)
		}
		if !equalMessage(back, g.msg) {
			t.Fatalf("%s decodes to %+v, want %+v", g.file, back, g.msg)
		}
	}
}

func equalMessage(a, b Message) bool {
	return a.Opcode == b.Opcode && a.Version == b.Version && a.RequestNumber == b.RequestNumber &&
		a.Options == b.Options && a.OptionData == b.OptionData && a.Sender == b.Sender &&
		a.Requester == b.Requester && a.URL == b.URL &&
		bytes.Equal(a.Object, b.Object) && (a.Object == nil) == (b.Object == nil)
}

func TestRoundTripEveryOpcode(t *testing.T) {
	for _, op := range []Opcode{OpQuery, OpHit, OpMiss, OpErr, OpSecho, OpDecho, OpMissNoFetch, OpDenied, OpHitObj} {
		for _, version := range []uint8{Version2, Version3} {
			m := Message{Opcode: op, Version: version, RequestNumber: 0xfedcba98, Options: FlagSrcRTT,
				OptionData: 0x1234, Sender: netip.MustParseAddr("10.1.2.3"), URL: "http://example.org/a?b=c"}
			if op == OpQuery {
				m.Requester = netip.MustParseAddr("10.9.8.7")
			}
			if op == OpHitObj {
				m.Object = []byte("HTTP/1.0 200 OK\r\n\r\nhello")
			}
			b, err := Encode(m)
			if err != nil {
				t.Fatalf("%v: %v", op, err)
			}
			if len(b) != m.Size() || int(binary.BigEndian.Uint16(b[2:])) != len(b) {
				t.Fatalf("%v: %d bytes, Size %d, length field %d", op, len(b), m.Size(), binary.BigEndian.Uint16(b[2:]))
			}
			back, err := Decode(b, Limits{})
			if err != nil || !equalMessage(back, m) {
				t.Fatalf("%v v%d: %+v, %v; want %+v", op, version, back, err, m)
			}
			var u Message
			if err := u.UnmarshalBinary(b); err != nil || !equalMessage(u, m) {
				t.Fatalf("UnmarshalBinary: %v", err)
			}
			again, _ := back.AppendBinary([]byte("prefix"))
			if !bytes.Equal(again[6:], b) {
				t.Fatalf("%v: AppendBinary differs", op)
			}
		}
	}
	// Defaults: version 2, zero addresses as 0.0.0.0, an empty HIT_OBJ.
	b, _ := Encode(Message{Opcode: OpHitObj, URL: "u"})
	if want := []byte{23, 2, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'u', 0, 0, 0}; !bytes.Equal(b, want) {
		t.Fatalf("HIT_OBJ % x", b)
	}
	if m, err := Decode(b, Limits{}); err != nil || m.Object == nil || len(m.Object) != 0 {
		t.Fatalf("empty object: %#v, %v", m.Object, err)
	}
}

func TestEncodeRefuses(t *testing.T) {
	cases := map[string]struct {
		m    Message
		want error
	}{
		"invalid opcode":     {Message{Opcode: OpInvalid, URL: "u"}, ErrOpcode},
		"unknown opcode":     {Message{Opcode: 12, URL: "u"}, ErrOpcode},
		"version 1":          {Message{Opcode: OpHit, Version: 1, URL: "u"}, ErrVersion},
		"NUL in URL":         {Message{Opcode: OpHit, URL: "a\x00b"}, ErrFormat},
		"IPv6 sender":        {Message{Opcode: OpHit, URL: "u", Sender: netip.MustParseAddr("2001:db8::1")}, ErrFormat},
		"requester on reply": {Message{Opcode: OpMiss, URL: "u", Requester: netip.MustParseAddr("10.0.0.1")}, ErrFormat},
		"object on HIT":      {Message{Opcode: OpHit, URL: "u", Object: []byte{}}, ErrFormat},
		"over 16 KiB":        {Message{Opcode: OpMiss, URL: strings.Repeat("x", MaxMessageSize-HeaderSize)}, ErrTooBig},
	}
	for name, c := range cases {
		if b, err := AppendMessage([]byte("keep"), c.m); !errors.Is(err, c.want) || string(b) != "keep" {
			t.Errorf("%s: %q, %v; want %v", name, b, err, c.want)
		}
	}
	// The largest message RFC 2186 allows is written.
	if b, err := Encode(Message{Opcode: OpMiss, URL: strings.Repeat("x", MaxMessageSize-HeaderSize-1)}); err != nil || len(b) != MaxMessageSize {
		t.Fatalf("16 KiB message: %d bytes, %v", len(b), err)
	}
	// An IPv4-mapped address is IPv4.
	b, err := Encode(Message{Opcode: OpHit, URL: "u", Sender: netip.MustParseAddr("::ffff:192.0.2.9")})
	if err != nil || !bytes.Equal(b[16:20], []byte{192, 0, 2, 9}) {
		t.Fatalf("mapped sender: % x, %v", b, err)
	}
}

func TestDecodeRejectsHostileInput(t *testing.T) {
	edit := func(base []byte, f func(b []byte)) []byte { b := bytes.Clone(base); f(b); return b }
	setLen := func(b []byte) { binary.BigEndian.PutUint16(b[2:], uint16(len(b))) }
	huge := concat(goldenHitBytes[:HeaderSize], bytes.Repeat([]byte{'x'}, DefaultMaxURL+1), []byte{0})
	setLen(huge)
	cases := map[string]struct {
		in   []byte
		want error
	}{
		"empty":              {nil, ErrFormat},
		"short header":       {goldenHitBytes[:19], ErrFormat},
		"header only":        {edit(goldenHitBytes[:HeaderSize], setLen), ErrFormat},
		"version 0":          {edit(goldenHitBytes, func(b []byte) { b[1] = 0 }), ErrVersion},
		"version 1":          {edit(goldenHitBytes, func(b []byte) { b[1] = 1 }), ErrVersion},
		"version 4":          {edit(goldenHitBytes, func(b []byte) { b[1] = 4 }), ErrVersion},
		"ICP_OP_INVALID":     {edit(goldenHitBytes, func(b []byte) { b[0] = 0 }), ErrOpcode},
		"experimental 12":    {edit(goldenHitBytes, func(b []byte) { b[0] = 12 }), ErrOpcode},
		"opcode 24":          {edit(goldenHitBytes, func(b []byte) { b[0] = 24 }), ErrOpcode},
		"opcode 255":         {edit(goldenHitBytes, func(b []byte) { b[0] = 255 }), ErrOpcode},
		"length short":       {edit(goldenHitBytes, func(b []byte) { b[3]-- }), ErrFormat},
		"length long":        {edit(goldenHitBytes, func(b []byte) { b[3]++ }), ErrFormat},
		"length 0":           {edit(goldenHitBytes, func(b []byte) { b[2], b[3] = 0, 0 }), ErrFormat},
		"truncated":          {edit(goldenHitBytes[:len(goldenHitBytes)-1], setLen), ErrFormat},
		"no NUL":             {edit(goldenHitBytes, func(b []byte) { b[len(b)-1] = '/' }), ErrFormat},
		"trailing byte":      {edit(append(bytes.Clone(goldenHitBytes), 0), setLen), ErrFormat},
		"query no requester": {edit(goldenQueryBytes[:22], setLen), ErrFormat},
		"query no URL":       {edit(goldenQueryBytes[:24], setLen), ErrFormat},
		"URL over 16 KiB":    {huge, ErrTooBig},
		"HIT_OBJ no size":    {edit(goldenHitBytes, func(b []byte) { b[0] = byte(OpHitObj) }), ErrFormat},
		"HIT_OBJ over size":  {edit(append(bytes.Clone(goldenHitBytes), 0, 5, 'a'), func(b []byte) { b[0] = byte(OpHitObj); setLen(b) }), ErrFormat},
		"HIT_OBJ under size": {edit(append(bytes.Clone(goldenHitBytes), 0, 0, 'a'), func(b []byte) { b[0] = byte(OpHitObj); setLen(b) }), ErrFormat},
		"over 64 KiB":        {make([]byte, MaxDatagram+1), ErrTooBig},
	}
	for name, c := range cases {
		m, err := Decode(c.in, Limits{})
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "icp: ") {
			t.Errorf("%s: error %q lacks the package prefix", name, err)
		}
		if err != nil && !equalMessage(m, Message{}) {
			t.Errorf("%s: partial message %+v returned with the error", name, m)
		}
	}
	// Limits below the defaults.
	if _, err := Decode(goldenHitBytes, Limits{MaxMessage: len(goldenHitBytes) - 1}); !errors.Is(err, ErrTooBig) {
		t.Errorf("MaxMessage: %v", err)
	}
	if _, err := Decode(goldenHitBytes, Limits{MaxURL: len(goldenURL) - 1}); !errors.Is(err, ErrTooBig) {
		t.Errorf("MaxURL: %v", err)
	}
	if _, err := Decode(goldenHitBytes, Limits{MaxURL: len(goldenURL), MaxMessage: len(goldenHitBytes)}); err != nil {
		t.Errorf("at the limits: %v", err)
	}
	// Up to 64 KiB is accepted by default, as the length field allows.
	big := concat(goldenHitBytes[:HeaderSize], bytes.Repeat([]byte{'x'}, 100), []byte{0}, bytes.Repeat([]byte{'y'}, MaxDatagram-HeaderSize-101))
	big[0] = byte(OpHitObj)
	binary.BigEndian.PutUint16(big[HeaderSize+101:], uint16(MaxDatagram-HeaderSize-103))
	setLen(big)
	if m, err := Decode(big, Limits{}); err != nil || len(big) != MaxDatagram || len(m.Object) != MaxDatagram-HeaderSize-103 {
		t.Errorf("64 KiB HIT_OBJ: %v", err)
	}
}

func TestDecodeCopies(t *testing.T) {
	b := bytes.Clone(goldenHitBytes)
	m, err := Decode(b, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = 'Z'
	}
	if m.URL != goldenURL {
		t.Fatal("the URL aliases the datagram")
	}
}

func TestOpcode(t *testing.T) {
	if OpMissNoFetch.String() != "ICP_OP_MISS_NOFETCH" || Opcode(5).String() != "ICP_OP(5)" || Opcode(200).String() != "ICP_OP(200)" {
		t.Fatal("String")
	}
	valid := 0
	for i := 0; i < 256; i++ {
		if Opcode(i).Valid() {
			valid++
		}
	}
	if valid != 9 || OpInvalid.Valid() || OpQuery.IsReply() || !OpDenied.IsReply() || !OpHitObj.IsHit() || OpMiss.IsHit() {
		t.Fatalf("%d valid opcodes", valid)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(goldenQueryBytes)
	f.Add(goldenHitBytes)
	obj, _ := Encode(Message{Opcode: OpHitObj, Version: 3, URL: "http://a/", Object: []byte("body")})
	f.Add(obj)
	f.Add(goldenHitBytes[:HeaderSize])
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b, Limits{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "icp: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		if len(m.URL) >= len(b) || len(m.Object) >= len(b) {
			t.Fatal("allocation beyond the datagram")
		}
		again, err := Encode(m)
		if len(b) > MaxMessageSize {
			if !errors.Is(err, ErrTooBig) {
				t.Fatalf("a %d-byte message re-encoded: %v", len(b), err)
			}
			return
		}
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs (%v):\n% x\n% x", err, again, b)
		}
	})
}
