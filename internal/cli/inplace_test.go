package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentAdds runs 32 "bloomcast add" processes at once, each
// adding its own key to one filter file: every key must be in the result
// (the lock serialises the read-modify-writes), and the file must be a
// whole filter.
func TestConcurrentAdds(t *testing.T) {
	bin := bloomcastBinary(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "f.bf")
	ok(t, "", "build", "-q", "-n", "1000", "-p", "0.0001", "-o", f)
	const n = 32
	keys := make([]string, n)
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("http://x/%d", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := exec.Command(bin, "add", f, keys[i]).CombinedOutput()
			if err != nil {
				errs[i] = fmt.Sprintf("add %s: %v: %s", keys[i], err, out)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	answers, code := queryAll(t, f, keys)
	if got := countAnswers(answers, "maybe"); got != n || code != 0 {
		t.Fatalf("%d of %d keys present after concurrent adds (exit %d)", got, n, code)
	}
	if inspectJSON(t, f).Count != n {
		t.Errorf("recorded count %d, want %d", inspectJSON(t, f).Count, n)
	}
}

// TestInPlaceKeepsModeAndOwner checks that add and remove keep the
// file's mode and, when the test may give files away (root), its owner
// and group.
func TestInPlaceKeepsModeAndOwner(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes and owners")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "c.bf")
	ok(t, "a\n", "build", "--counting", "-n", "100", "-o", f)
	if err := os.Chmod(f, 0o640); err != nil {
		t.Fatal(err)
	}
	gaveAway := os.Chown(f, 4321, 4322) == nil
	ok(t, "", "add", f, "b")
	ok(t, "", "remove", f, "a")
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want -rw-r-----", fi.Mode().Perm())
	}
	if uid, gid := fileOwner(fi); gaveAway && (uid != 4321 || gid != 4322) {
		t.Errorf("owner %d:%d, want 4321:4322", uid, gid)
	}
}

// TestReadOnlyRefused checks that every command that writes a file
// refuses one the user may not write (mode 0444, or in a directory of
// mode 0555), even as root: exit status 2, one line naming the file, and
// the file byte for byte as it was.
func TestReadOnlyRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes")
	}
	dir := t.TempDir()
	bf := filepath.Join(dir, "f.bf")
	cf := filepath.Join(dir, "c.bf")
	blm := filepath.Join(dir, "m.blm")
	ok(t, "a\n", "build", "-n", "100", "-o", bf)
	ok(t, "a\n", "build", "--counting", "-n", "100", "-o", cf)
	ok(t, "a\t1\n", "bloomier", "build", "--updatable", "-o", blm)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	inSub := filepath.Join(sub, "f.bf")
	ok(t, "a\n", "build", "-n", "100", "-o", inSub)
	for _, p := range []string{bf, cf, blm} {
		if err := os.Chmod(p, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sub, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(sub, 0o755)
	before := map[string][]byte{}
	for _, p := range []string{bf, cf, blm, inSub} {
		before[p], _ = os.ReadFile(p)
	}
	for _, c := range []struct {
		file string
		args []string
	}{
		{bf, []string{"add", bf, "b"}},
		{cf, []string{"add", cf, "b"}},
		{cf, []string{"remove", cf, "a"}},
		{blm, []string{"bloomier", "update", blm, "a", "2"}},
		{inSub, []string{"add", inSub, "b"}},
		{bf, []string{"build", "-n", "100", "-o", bf}},
		{bf, []string{"union", "-o", bf, inSub, inSub}},
		{inSub, []string{"fold", "-o", inSub, bf}},
		{filepath.Join(sub, "new.bf"), []string{"build", "-n", "100", "-o", filepath.Join(sub, "new.bf")}},
	} {
		r := bc(t, "b\n", c.args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "bloomcast: "+c.file+": not writable: ") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line saying %s is not writable", c.args, r.code, r.stderr, c.file)
		}
	}
	for p, data := range before {
		if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, data) {
			t.Errorf("%s changed (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(sub, "new.bf")); !os.IsNotExist(err) {
		t.Errorf("new.bf was created in a read-only directory: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	subEntries, _ := os.ReadDir(sub)
	for _, e := range append(entries, subEntries...) {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
