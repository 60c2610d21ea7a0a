package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/filereport"
	"github.com/bloomcast/bloomcast/internal/report"
)

func TestCompressDecompress(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("key", 5000)
	raw := filepath.Join(dir, "f.bf")
	ok(t, lines, "build", "--layout", "classic", "-m", "70000", "-k", "2", "-o", raw)
	rawBytes, _ := os.ReadFile(raw)
	for _, codec := range []string{"auto", "arith", "fast", "raw"} {
		c := filepath.Join(dir, codec+".bf")
		ok(t, "", "compress", "--codec", codec, "--seq", "7", "-o", c, raw)
		r := inspectJSON(t, c)
		want := map[string]string{"auto": "arith", "arith": "arith", "fast": "fast", "raw": "raw"}[codec]
		if r.Codec != want || r.Sequence != 7 || r.Count != 5000 {
			t.Fatalf("%s: inspect says codec %s, sequence %d, count %d", codec, r.Codec, r.Sequence, r.Count)
		}
		if codec != "raw" && (r.EntropyRatio == nil || *r.EntropyRatio > 1.01 || r.EncodedBytes >= int64(len(rawBytes))) {
			t.Fatalf("%s: %d bytes, ratio to entropy %v", codec, r.EncodedBytes, r.EntropyRatio)
		}
		// Every reader takes compressed digests directly.
		if answers, code := queryAll(t, c, keys); code != 0 || countAnswers(answers, "maybe") != len(keys) {
			t.Fatalf("%s: query of members: exit %d", codec, code)
		}
		back := filepath.Join(dir, codec+".raw")
		ok(t, "", "decompress", "-o", back, c)
		got, _ := os.ReadFile(back)
		// All but the sequence (7 here, 0 in the original) and the
		// checksum over it.
		got[20] = 0
		if n := len(got) - 4; len(got) != len(rawBytes) || !bytes.Equal(got[:n], rawBytes[:n]) {
			t.Fatalf("%s: decompress does not give back the built filter", codec)
		}
	}
	u := filepath.Join(dir, "u.bf")
	ok(t, "", "union", "-q", "-o", u, filepath.Join(dir, "arith.bf"), filepath.Join(dir, "fast.bf"))
	if r := inspectJSON(t, u); r.SetBits != inspectJSON(t, raw).SetBits {
		t.Fatal("union of two compressed copies differs from the filter")
	}
	usageFails(t, "compress: --codec: unsupported codec: \"zstd\"", "compress", "--codec", "zstd", "-o", u, raw)
}

func TestCompressCounting(t *testing.T) {
	dir := t.TempDir()
	_, lines := keyLines("key", 3000)
	raw := filepath.Join(dir, "c.bcf")
	ok(t, lines, "build", "--counting", "-n", "3000", "-o", raw)
	c := filepath.Join(dir, "c.z")
	ok(t, "", "compress", "-o", c, raw)
	r := inspectJSON(t, c)
	if r.Codec != "fast" || r.Counting == nil || r.EncodedBytes >= inspectJSON(t, raw).EncodedBytes/2 {
		t.Fatalf("counting filter compressed: codec %s, %d bytes", r.Codec, r.EncodedBytes)
	}
	failsWith(t, raw+": unsupported codec: the arithmetic coder codes bit arrays", "compress", "--codec", "arith", "-o", c, raw)
}

func TestDiffPatch(t *testing.T) {
	dir := t.TempDir()
	_, oldLines := keyLines("key", 4000)
	keys, _ := keyLines("key", 4100)
	newLines := strings.Join(keys[100:], "\n")
	old, next := filepath.Join(dir, "old.bf"), filepath.Join(dir, "new.bf")
	ok(t, oldLines, "build", "-m", "64000", "-k", "4", "--layout", "classic", "-o", old)
	ok(t, newLines, "build", "-m", "64000", "-k", "4", "--layout", "classic", "-o", next)
	oldZ := filepath.Join(dir, "old.z")
	ok(t, "", "compress", "--seq", "3", "-o", oldZ, old)

	delta := ok(t, "", "diff", oldZ, next)
	deltaPath := writeFile(t, filepath.Join(dir, "d.delta"), delta)
	var d filereport.DeltaReport
	if err := json.Unmarshal([]byte(ok(t, "", "inspect", "--json", deltaPath)), &d); err != nil {
		t.Fatal(err)
	}
	if d.Type != "delta" || d.BaseSequence != 3 || d.Sequence != 4 || d.ChangedBits == 0 || d.Target != "bloom" {
		t.Fatalf("inspect of the delta: %+v", d)
	}
	if full := inspectJSON(t, oldZ).EncodedBytes; int64(len(delta)) >= full/2 {
		t.Fatalf("delta of %d bytes at 2.5%% churn, a full digest is %d", len(delta), full)
	}
	patched := filepath.Join(dir, "p.bf")
	ok(t, "", "patch", "-o", patched, oldZ, deltaPath)
	got, want := inspectJSON(t, patched), inspectJSON(t, next)
	if got.SetBits != want.SetBits || got.Count != want.Count || got.Sequence != 4 {
		t.Fatalf("patched %+v, want %+v", got, want)
	}
	// A delta for another base is refused with exit status 2.
	failsWith(t, deltaPath+": delta does not apply to this base", "patch", old, deltaPath)
	failsWith(t, deltaPath+": delta does not apply to this base", "patch", next, deltaPath)
	// Readers of filters point at patch.
	failsWith(t, deltaPath+": a delta digest (sequence 3 to 4), not a filter", "query", deltaPath)
	other := filepath.Join(dir, "other.bf")
	ok(t, oldLines, "build", "-m", "64000", "-k", "3", "--layout", "classic", "-o", other)
	failsWith(t, old+" and "+other+": delta does not apply to this base", "diff", old, other)
}

func TestCalcTransmit(t *testing.T) {
	var r report.TransmitReport
	out := ok(t, "", "calc", "-n", "10000", "--transmit", "8", "--whole", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// The paper's example: the standard filter is (8, 6, 0.0216); with
	// compression k = 2 reaches (14, 2, z/n 7.923, f 0.0177).
	u := r.Uncompressed
	if u == nil || u.BitsPerKey != 8 || u.K != 6 || !near(u.FalsePositiveRate, 0.0216, 0.001) {
		t.Fatalf("standard filter %+v", u)
	}
	var k2 *report.TransmitShape
	for i := range r.PerK {
		if r.PerK[i].K == 2 {
			k2 = &r.PerK[i]
		}
	}
	if k2 == nil || k2.BitsPerKey != 14 || !near(k2.TransmitBitsPerKey, 7.923, 0.001) || !near(k2.FalsePositiveRate, 0.0177, 0.001) {
		t.Fatalf("k = 2: %+v", k2)
	}
	if r.Best.FalsePositiveRate >= k2.FalsePositiveRate || r.Best.TransmitBitsPerKey > 8 {
		t.Fatalf("best %+v is not better than k = 2", r.Best)
	}
	text := ok(t, "", "calc", "-n", "10000", "-p", "0.01", "--compressed", "--max-bpk", "16", "--churn", "0.01")
	if !strings.Contains(text, "the smallest message") || !strings.Contains(text, "delta/n") {
		t.Fatalf("calc --compressed:\n%s", text)
	}
	failsWith(t, "calc: give either --transmit Z or -p P --compressed", "calc", "-n", "10", "--transmit", "8", "--compressed", "-p", "0.1")
	usageFails(t, "calc: calc --transmit and --compressed need -n N", "calc", "--transmit", "8")
	if !strings.Contains(ok(t, "", "calc", "--compressed", "-h"), "Compressed Bloom") {
		t.Fatal("calc --compressed -h does not print its usage")
	}
}

func near(got, want, tol float64) bool { return got >= want-tol && got <= want+tol }

func TestSimCompress(t *testing.T) {
	var rows []report.CompressRow
	out := ok(t, "", "sim", "compress", "--n", "20000", "--trials", "3", "--queries", "20000", "--shapes", "48:3,14:2", "--json")
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].K != 3 || rows[1].M != 14*20000 {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		if r.MeanOverIdeal < 0.99 || r.MeanOverIdeal > 1.01 || r.Codecs["arith"] != 3 {
			t.Errorf("%+v", r)
		}
	}
	text := ok(t, "", "sim", "compress", "--n", "2000", "--trials", "2", "--queries", "100", "--codec", "fast", "--shapes", "14:2")
	if !strings.Contains(text, "mean/ideal") {
		t.Fatalf("table:\n%s", text)
	}
	usageFails(t, "sim: --shapes: \"14\" is not m/n:k", "sim", "compress", "--shapes", "14")
}
