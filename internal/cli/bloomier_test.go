package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/filereport"
)

// kvLines returns n KEY<TAB>VALUE lines and the values.
func kvLines(n int) (string, []uint64) {
	var b strings.Builder
	values := make([]uint64, n)
	for i := range n {
		values[i] = uint64(i*i) % 5000
		fmt.Fprintf(&b, "key-%d\t%d\n", i, values[i])
	}
	return b.String(), values
}

func TestBloomierBuildGet(t *testing.T) {
	dir := t.TempDir()
	lines, values := kvLines(2000)
	in := writeFile(t, filepath.Join(dir, "kv.txt"), lines)
	out := filepath.Join(dir, "map.blm")
	ok(t, "", "bloomier", "build", "--check", "12", "-o", out, in)

	var keys []string
	var want strings.Builder
	for i := range values {
		keys = append(keys, fmt.Sprintf("key-%d", i))
		fmt.Fprintln(&want, values[i])
	}
	if got := ok(t, "", append([]string{"bloomier", "get", out}, keys...)...); got != want.String() {
		t.Fatal("bloomier get: wrong values for stored keys")
	}
	if got := ok(t, strings.Join(keys, "\n"), "bloomier", "get", out); got != want.String() {
		t.Fatal("bloomier get from standard input: wrong values")
	}
	r := bc(t, "", "bloomier", "get", "-v", out, "key-7", "no-such-key")
	if r.code != 1 || r.stdout != "key-7\t49\nno-such-key\tabsent\n" {
		t.Fatalf("get -v with an absent key: exit %d, %q", r.code, r.stdout)
	}

	var info filereport.BloomierReport
	if err := json.Unmarshal([]byte(ok(t, "", "bloomier", "info", "--json", out)), &info); err != nil {
		t.Fatal(err)
	}
	if info.Keys != 2000 || info.ValueBits != 13 || info.CheckBits != 12 || info.Updatable ||
		info.BitsPerKey > 1.25*25 || info.FalsePositiveRate != 1.0/4096 {
		t.Fatalf("info: %+v", info)
	}
	if !strings.Contains(ok(t, "", "bloomier", "info", out), "bits per key") {
		t.Fatal("info: no size line")
	}
}

func TestBloomierInputFormat(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.blm")
	// Keys may hold tabs (the value follows the last one); CRLF line
	// ends and empty lines are fine; a key may repeat with its value.
	input := "a\tb\t1\r\n\nc\t18446744073709551615\na\tb\t1\n"
	ok(t, input, "bloomier", "build", "-o", out, "--check", "0")
	if got := ok(t, "", "bloomier", "get", out, "a\tb", "c"); got != "1\n18446744073709551615\n" {
		t.Fatalf("get: %q", got)
	}
	if got := inspectBloomier(t, out); got.ValueBits != 64 {
		t.Fatalf("value bits %d, want 64", got.ValueBits)
	}
	bad := map[string]string{
		"x\t1\nno tab here\n":       "stdin:2: want KEY<TAB>VALUE",
		"x\t-1\n":                   `stdin:1: value "-1" is not an unsigned decimal integer (0 to 18446744073709551615): the values stored are numbers`,
		"x\t1\ny\t2\nx\t3\n":        "stdin:3: key given a different value on stdin:1",
		"x\t1\ny\t300\n":            "stdin:2: value 300 needs 9 bits, more than --value-bits 8",
		"x\t18446744073709551616\n": `stdin:1: value "18446744073709551616"`,
	}
	for input, msg := range bad {
		r := bc(t, input, "bloomier", "build", "--value-bits", "8", "-o", out)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: "+msg) {
			t.Errorf("input %q: exit %d, stderr %q; want %q", input, r.code, r.stderr, msg)
		}
	}
}

func inspectBloomier(t *testing.T, path string) filereport.BloomierReport {
	t.Helper()
	var r filereport.BloomierReport
	if err := json.Unmarshal([]byte(ok(t, "", "bloomier", "info", "--json", path)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBloomierUpdate(t *testing.T) {
	dir := t.TempDir()
	static, updatable := filepath.Join(dir, "s.blm"), filepath.Join(dir, "u.blm")
	lines, _ := kvLines(100)
	ok(t, lines, "bloomier", "build", "--value-bits", "16", "-o", static)
	ok(t, lines, "bloomier", "build", "--value-bits", "16", "--check", "20", "--updatable", "-o", updatable)

	failsWith(t, static+": holds a static Bloomier filter", "bloomier", "update", static, "key-1", "5")
	ok(t, "", "bloomier", "update", updatable, "key-1", "65535", "key-2", "0")
	if got := ok(t, "", "bloomier", "get", updatable, "key-1", "key-2", "key-3"); got != "65535\n0\n9\n" {
		t.Fatalf("after update: %q", got)
	}

	before, _ := os.ReadFile(updatable)
	r := bc(t, "", "bloomier", "update", updatable, "key-1", "7", "not-a-key", "8")
	if r.code != 1 || !strings.Contains(r.stderr, `1 of 2 keys not in the filter (the first: "not-a-key")`) {
		t.Fatalf("update of an absent key: exit %d, %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(updatable); string(after) != string(before) {
		t.Fatal("a refused update changed the file")
	}
	failsWith(t, `key "key-1": value does not fit`, "bloomier", "update", updatable, "key-1", "65536")
	bloomierUsageFails(t, "bloomier: want FILE and KEY VALUE pairs", "bloomier", "update", updatable, "key-1")
}

func TestBloomierErrors(t *testing.T) {
	dir := t.TempDir()
	bloomFile := filepath.Join(dir, "f.bloom")
	ok(t, "a\nb\n", "build", "-o", bloomFile)
	failsWith(t, bloomFile+": holds a bloom, not a Bloomier filter", "bloomier", "get", bloomFile, "a")
	notFrame := writeFile(t, filepath.Join(dir, "text"), "hello\n")
	failsWith(t, notFrame+": not a bloomcast file", "bloomier", "info", notFrame)
	bloomierUsageFails(t, "bloomier: missing -o OUT", "bloomier", "build")
	bloomierUsageFails(t, "bloomier: missing build, get, update or info", "bloomier")
	bloomierUsageFails(t, `bloomier: unknown subcommand "put"`, "bloomier", "put")
	bloomierUsageFails(t, "bloomier: invalid configuration: ValueBits + CheckBits = 72", "bloomier", "build", "--value-bits", "64", "-o", filepath.Join(dir, "x"))
	if out := ok(t, "", "bloomier", "-h"); !strings.HasPrefix(out, "usage: bloomcast bloomier build") {
		t.Fatalf("bloomier -h: %q", out)
	}
	if out := ok(t, "", "help", "bloomier"); !strings.Contains(out, "bloomcast bloomier get") {
		t.Fatal("help bloomier")
	}
}

// bloomierUsageFails runs bloomcast and expects exit status 2 and one line
// on standard error starting with "bloomcast: " + prefix and ending with
// the pointer to the usage.
func bloomierUsageFails(t *testing.T, prefix string, args ...string) {
	t.Helper()
	r := bc(t, "", args...)
	if r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: "+prefix) || !isUsageLine(r.stderr, "bloomier") {
		t.Fatalf("bloomcast %q: exit %d, stderr %q; want a usage error %q", args, r.code, r.stderr, prefix)
	}
}
