package cli

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

func TestCompressPieces(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("p", 5000)
	for _, layout := range []string{"classic", "blocked"} {
		raw, pieced := filepath.Join(dir, layout), filepath.Join(dir, layout+".pz")
		ok(t, lines, "build", "-n", "5000", "-p", "0.01", "--layout", layout, "-o", raw)
		ok(t, "", "compress", "--piece-size", "1000", "--codec", "fast", "-o", pieced, raw)
		r := inspectJSON(t, pieced)
		if r.Codec != "pieces" || r.Pieces == nil || r.Pieces.Codec != "fast" || r.Pieces.PieceBytes%8 != 0 || r.Pieces.Count < 2 {
			t.Fatalf("%s: inspect: codec %q, pieces %+v", layout, r.Codec, r.Pieces)
		}
		// Every command reads it: query (piece by piece), decompress
		// (whole), and add writes it back in pieces.
		answers, code := queryAll(t, pieced, keys)
		if code != 0 || countAnswers(answers, "maybe") != len(keys) {
			t.Fatalf("%s: a key is missing from the pieces", layout)
		}
		ok(t, "", "decompress", "-o", filepath.Join(dir, "back"), pieced)
		a, _ := os.ReadFile(raw)
		b, _ := os.ReadFile(filepath.Join(dir, "back"))
		if string(a) != string(b) {
			t.Fatalf("%s: decompressing the pieces does not give the filter back", layout)
		}
		ok(t, "", "add", pieced, "new-key")
		if r := inspectJSON(t, pieced); r.Pieces == nil || r.Count != 5001 {
			t.Fatalf("%s: add did not keep the pieces: %+v", layout, r.Pieces)
		}
		if got := ok(t, "", "query", pieced, "new-key"); got != "maybe\n" {
			t.Errorf("%s: %q", layout, got)
		}
	}
	raw := filepath.Join(dir, "classic")
	usageFails(t, "compress: --piece-size codes pieces with arith or fast", "compress", "--piece-size", "64", "--codec", "raw", "-o", filepath.Join(dir, "x"), raw)
	usageFails(t, "compress: --piece-size 0", "compress", "--piece-size", "0", "-o", filepath.Join(dir, "x"), raw)
}

// TestQueryDecodesOnlyPieces: a query of a blocked digest reads a piece
// per key: with a piece's stream corrupted, keys elsewhere still answer
// and a key in that piece is an error.
func TestQueryDecodesOnlyPieces(t *testing.T) {
	dir := t.TempDir()
	_, lines := keyLines("q", 20000)
	raw, pieced := filepath.Join(dir, "f"), filepath.Join(dir, "f.pz")
	ok(t, lines, "build", "-n", "20000", "-p", "0.01", "-o", raw)
	ok(t, "", "compress", "--piece-size", "64", "--codec", "fast", "-o", pieced, raw)
	data, _ := os.ReadFile(pieced)
	v, err := digest.DecodePieces(data, envelope.Limits{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Give the last piece's stream an unknown codec byte and fix the
	// frame's checksum.
	h, body, _ := envelope.Parse(data, envelope.Limits{})
	n := v.Pieces()
	body[8+4*n+int(binary.LittleEndian.Uint32(body[8+4*(n-2):]))] = 9
	frame, _ := envelope.AppendHeader(nil, &h, uint64(len(body)))
	frame = envelope.AppendTrailer(append(frame, body...), 0)
	writeFile(t, pieced, string(frame))
	var inLast, elsewhere string
	for i := 0; inLast == "" || elsewhere == ""; i++ {
		k := "probe-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26%26))
		hs := v.Geometry().Hash([]byte(k))
		var buf [64]uint64
		p := v.Geometry().Positions(hs, &buf)[0]
		if p/(8*uint64(v.PieceBytes())) == uint64(v.Pieces()-1) {
			inLast = k
		} else {
			elsewhere = k
		}
	}
	if r := bc(t, "", "query", pieced, elsewhere); r.code == 2 {
		t.Errorf("a key outside the corrupt piece: %q", r.stderr)
	}
	failsWith(t, pieced+": corrupt", "query", pieced, inLast)
	failsWith(t, pieced+": corrupt", "inspect", pieced)
}
