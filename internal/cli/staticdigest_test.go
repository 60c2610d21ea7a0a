package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A static digest's whole frame (the golden file of package digest)
// is read by inspect, in text and JSON, and by query, which answers
// through digest.StaticView: the output is the golden files'.
func TestStaticDigestGolden(t *testing.T) {
	frame, err := os.ReadFile(filepath.Join("..", "..", "digest", "testdata", "golden-static-full.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"static-digest-inspect.txt", []string{"inspect", "-"}, 0},
		{"static-digest-inspect.json", []string{"inspect", "--json", "-"}, 0},
		{"static-digest-query.txt", []string{"query", "-", "k0", "k17", "k199", "k200", "http://absent.example/"}, 1},
	} {
		r := bc(t, string(frame), c.args...)
		if r.code != c.code || r.stderr != "" {
			t.Fatalf("%q: exit %d, stderr %q", c.args, r.code, r.stderr)
		}
		golden := filepath.Join("testdata", c.golden)
		if *updateGolden {
			if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if r.stdout != string(want) {
			t.Errorf("%q differs from %s:\n%s", c.args, golden, r.stdout)
		}
	}
}
