package crosscheck

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/formats/parquet"
)

// duckDB returns a function that runs duckdb.cjs with node. Without node
// or the npm package @duckdb/node-api (found through NODE_PATH, as .ci/run
// installs it) it skips, unless BLOOMCAST_REQUIRE_NODE is set, when it
// fails.
func duckDB(t *testing.T) func(args ...string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		if out, e := exec.Command(node, "-e", "require('@duckdb/node-api')").CombinedOutput(); e != nil {
			err = &exec.Error{Name: "@duckdb/node-api", Err: e}
			t.Logf("%s", firstLine(out))
		}
	}
	if err != nil {
		if os.Getenv("BLOOMCAST_REQUIRE_NODE") != "" {
			t.Fatalf("BLOOMCAST_REQUIRE_NODE is set: %v", err)
		}
		t.Skipf("node and @duckdb/node-api (NODE_PATH) not installed: %v", err)
	}
	return func(args ...string) {
		t.Helper()
		out, err := exec.Command(node, append([]string{"duckdb.cjs"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("node duckdb.cjs %v: %v\n%s", args, err, out)
		}
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// bigAnswers reads ../testdata/duckdb-big.answers: n, and the absent keys
// (n..2n-1) that DuckDB's parquet_bloom_probe did not exclude. It fails
// the test if DuckDB excluded a present key.
func bigAnswers(t *testing.T) (n int, maybe []int) {
	t.Helper()
	data, err := os.ReadFile("../testdata/duckdb-big.answers")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || lines[1] != "present-excluded" || !strings.HasPrefix(lines[2], "absent-maybe") {
		t.Fatalf("duckdb-big.answers: want the lines n, present-excluded (empty) and absent-maybe")
	}
	if n, err = strconv.Atoi(strings.TrimPrefix(lines[0], "n ")); err != nil {
		t.Fatalf("duckdb-big.answers: %v", err)
	}
	for _, s := range strings.Fields(lines[2])[1:] {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("duckdb-big.answers: %v", err)
		}
		maybe = append(maybe, v)
	}
	return n, maybe
}

// sampleSize is how many of the 2n keys TestRealDuckDB draws at random
// for the live parquet_bloom_probe, besides the golden file's absent
// keys that DuckDB did not exclude.
const sampleSize = 3000

// TestRealDuckDB checks that the golden answers of formats/parquet's
// TestGoldenDuckDBBig are still DuckDB's: the DuckDB installed has
// duckdb.cjs write the file of k0..k(n-1) (each twice, one row group) and
// its filter must be byte for byte ../testdata/duckdb-big.sbbf; then
// parquet_bloom_probe on that file answers, for a fixed-seed sample of
// sampleSize of the keys k0..k(2n-1) and for every absent key it did not
// exclude in ../testdata/duckdb-big.answers, as that file says and as
// bloomcast's File.Probe does (present keys: always "may contain").
// Probing all 2·10^5 keys live takes minutes; TestGoldenDuckDBBig checks
// every one against the recorded answers.
func TestRealDuckDB(t *testing.T) {
	run := duckDB(t)
	n, maybe := bigAnswers(t)
	golden, err := os.ReadFile("../testdata/duckdb-big.sbbf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "big.parquet")
	start := time.Now()
	run("big", file, strconv.Itoa(n))
	wrote := time.Since(start)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	chunks := f.Filters()
	if len(chunks) != 1 || chunks[0].Column != "s" || chunks[0].Length <= 0 {
		t.Fatalf("DuckDB's file: filters %+v, want one of column s with its length", chunks)
	}
	c := chunks[0]
	if c.Offset+int64(c.Length) > int64(len(data)) {
		t.Fatalf("DuckDB's filter at %d, %d bytes, runs past the file's %d", c.Offset, c.Length, len(data))
	}
	if live := data[c.Offset : c.Offset+int64(c.Length)]; !bytes.Equal(live, golden) {
		t.Fatalf("the filter DuckDB writes (%d bytes) differs from ../testdata/duckdb-big.sbbf (%d bytes): rerun generate.sh", len(live), len(golden))
	}

	// The sample: fixed-seed random keys and every golden "may contain".
	rng := rand.New(rand.NewPCG(22, 2))
	keys := append([]int(nil), maybe...)
	for range sampleSize {
		keys = append(keys, rng.IntN(2*n))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	text := make([]string, len(keys))
	for i, v := range keys {
		text[i] = strconv.Itoa(v)
	}
	keysFile, answersFile := filepath.Join(dir, "keys"), filepath.Join(dir, "answers")
	if err := os.WriteFile(keysFile, []byte(strings.Join(text, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	run("probe", file, "s", keysFile, answersFile)
	probed := time.Since(start)
	out, err := os.ReadFile(answersFile)
	if err != nil {
		t.Fatal(err)
	}
	masks, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "s ")
	if !ok || len(masks) != len(keys) {
		t.Fatalf("parquet_bloom_probe's answers: %d masks for %d keys", len(masks), len(keys))
	}
	values := make([]string, len(keys))
	for i, v := range keys {
		values[i] = "k" + strconv.Itoa(v)
	}
	got, err := f.Probe("s", values)
	if err != nil {
		t.Fatal(err)
	}
	isMaybe := map[int]bool{}
	for _, v := range maybe {
		isMaybe[v] = true
	}
	disagree, present := 0, 0
	for i, v := range keys {
		live := masks[i] != '0'
		ours := len(got[i].RowGroups) > 0
		recorded := v < n || isMaybe[v]
		if masks[i] != '0' && masks[i] != '1' || live != ours || live != recorded || v < n && !live {
			disagree++
			if disagree <= 5 {
				t.Errorf("k%d (present: %v): DuckDB's mask %c, bloomcast's row groups %v, recorded answer %v", v, v < n, masks[i], got[i].RowGroups, recorded)
			}
		}
		if v < n {
			present++
		}
	}
	if disagree > 0 {
		t.Errorf("%d of %d sampled answers disagree", disagree, len(keys))
	}
	t.Logf("DuckDB wrote the file of %d values in %v, its filter identical to duckdb-big.sbbf; parquet_bloom_probe on %d present and %d absent values (%d of them recorded as may-contain) in %v (%.2f ms a value): %d disagreements with bloomcast and the recorded answers",
		n, wrote.Round(time.Millisecond), present, len(keys)-present, len(maybe), probed.Round(time.Millisecond), float64(probed.Microseconds())/1000/float64(len(keys)), disagree)
}
