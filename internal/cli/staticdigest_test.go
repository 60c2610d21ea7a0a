package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A static digest's whole frame (the golden files of package digest, of
// two filters and of one) is read by inspect, in text and JSON, and by
// query, which answers through digest.StaticView: the output is the
// golden files'.
func TestStaticDigestGolden(t *testing.T) {
	for file, prefix := range map[string]string{"golden-static-full.bin": "static-digest", "golden-static-xor-full.bin": "static-xor-digest"} {
		staticDigestGolden(t, file, prefix)
	}
}

func staticDigestGolden(t *testing.T, file, prefix string) {
	frame, err := os.ReadFile(filepath.Join("..", "..", "digest", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		golden string
		args   []string
		code   int
	}{
		{prefix + "-inspect.txt", []string{"inspect", "-"}, 0},
		{prefix + "-inspect.json", []string{"inspect", "--json", "-"}, 0},
		{prefix + "-query.txt", []string{"query", "-", "k0", "k17", "k199", "k200", "http://absent.example/"}, 1},
	} {
		r := bc(t, string(frame), c.args...)
		if r.code != c.code || r.stderr != "" {
			t.Fatalf("%s %q: exit %d, stderr %q", file, c.args, r.code, r.stderr)
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
			t.Errorf("%s %q differs from %s:\n%s", file, c.args, golden, r.stdout)
		}
	}
}
