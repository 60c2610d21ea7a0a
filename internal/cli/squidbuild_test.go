package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/formats/squid"
)

// build --squid writes exactly the digest the squid package makes, and
// inspect and query read it like any filter.
func TestSquidDigests(t *testing.T) {
	dir := t.TempDir()
	var urls []string
	for i := 0; i < 500; i++ {
		urls = append(urls, fmt.Sprintf("http://Example.COM:80/obj/%d", i))
	}
	in := writeFile(t, filepath.Join(dir, "urls.txt"), strings.Join(urls, "\n")+"\n")
	out := filepath.Join(dir, "d.digest")
	ok(t, "", "build", "--squid", "-n", "800", "--bits-per-entry", "6", "-o", out, in)

	want, _ := squid.New(800, 6)
	for _, u := range urls {
		want.Add(squid.GET, u)
	}
	wantBody, _ := want.MarshalBinary()
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, wantBody) {
		t.Fatalf("build --squid differs from squid.Digest's encoding (%v)", err)
	}

	r := inspectJSON(t, out)
	if r.Type != "squid cache digest" || r.Squid == nil || r.Squid.Capacity != 800 || r.Squid.BitsPerEntry != 6 ||
		r.Count != 500 || r.K != 4 || r.M != 800*6 || r.HashScheme != "squid-md5" || !r.Squid.Usable {
		t.Fatalf("inspect: %+v %+v", r, r.Squid)
	}

	answers, code := queryAll(t, out, []string{"http://example.com/obj/7", "HTTP://EXAMPLE.com/obj/8"})
	if code != 0 || countAnswers(answers, "maybe") != 2 {
		t.Fatalf("members: %v, exit %d", answers, code)
	}
	var absent []string
	for i := 0; i < 200; i++ {
		absent = append(absent, fmt.Sprintf("http://example.com/other/%d", i))
	}
	answers, code = queryAll(t, out, absent)
	if code != 1 || countAnswers(answers, "no") < 150 {
		t.Fatalf("non-members: %d of 200 absent, exit %d", countAnswers(answers, "no"), code)
	}

	if r := bc(t, "", "build", "--squid", "--layout", "classic", "-o", out, in); r.code != 2 ||
		!strings.HasPrefix(r.stderr, "bloomcast: build: --layout does not apply") {
		t.Fatalf("--squid --layout: exit %d, %q", r.code, r.stderr)
	}
	bad := writeFile(t, filepath.Join(dir, "bad.txt"), "http://ok/\nnot a url\n")
	failsWith(t, bad+":2: key \"not a url\"", "build", "--squid", "-o", filepath.Join(dir, "x"), bad)
}
