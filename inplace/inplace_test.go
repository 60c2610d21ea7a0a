package inplace_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/inplace"
)

// appendLine adds line to the file at path under the lock.
func appendLine(path, line string) error {
	f, err := inplace.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	old, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	return f.Replace(func(w io.Writer) error {
		_, err := io.WriteString(w, string(old)+line+"\n")
		return err
	})
}

// TestConcurrentUpdates runs 32 read-modify-write updates at once: every
// one's line must be in the result. Each Open is its own open file, so
// the flock or LockFileEx locks exclude each other as between processes.
func TestConcurrentUpdates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 32
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = appendLine(path, fmt.Sprintf("line %d", i))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(strings.ReplaceAll(string(data), "line ", "line_"))
	slices.Sort(lines)
	if len(lines) != n || len(slices.Compact(lines)) != n {
		t.Fatalf("%d lines of %d kept:\n%s", len(lines), n, data)
	}
	assertNoTemp(t, filepath.Dir(path))
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestReplaceKeepsModeAndOwner checks that the new file has the old one's
// mode, and, when the test may give files away (as root), its owner and
// group.
func TestReplaceKeepsModeAndOwner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil { // not the umask's choice
		t.Fatal(err)
	}
	gaveAway := runtime.GOOS != "windows" && os.Chown(path, 4321, 4322) == nil
	if err := appendLine(path, "new"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want -rw-r-----", fi.Mode().Perm())
	}
	if gaveAway {
		uid, gid := owner(fi)
		if uid != 4321 || gid != 4322 {
			t.Errorf("owner %d:%d, want 4321:4322", uid, gid)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != "old\nnew\n" {
		t.Errorf("content %q", data)
	}
}

// TestNotWritableRefused checks that a file of mode 0444, or one in a
// directory of mode 0555, is refused with ErrNotWritable and left as it
// was: also when the test runs as root, which the permission bits do not
// stop.
func TestNotWritableRefused(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.WriteFile(ro, []byte("keep\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := appendLine(ro, "x"); !errors.Is(err, inplace.ErrNotWritable) {
		t.Errorf("0444 file: %v, want ErrNotWritable", err)
	}
	if err := inplace.WriteFile(ro, 0o644, func(w io.Writer) error { return nil }); !errors.Is(err, inplace.ErrNotWritable) {
		t.Errorf("WriteFile over a 0444 file: %v, want ErrNotWritable", err)
	}
	if data, _ := os.ReadFile(ro); string(data) != "keep\n" {
		t.Errorf("0444 file changed: %q", data)
	}
	if runtime.GOOS == "windows" {
		return // a directory's read-only attribute does not stop writes
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(sub, "f")
	if err := os.WriteFile(f, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sub, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(sub, 0o755)
	if err := appendLine(f, "x"); !errors.Is(err, inplace.ErrNotWritable) {
		t.Errorf("file in a 0555 directory: %v, want ErrNotWritable", err)
	}
	if err := inplace.WriteFile(filepath.Join(sub, "new"), 0o644, func(w io.Writer) error { return nil }); !errors.Is(err, inplace.ErrNotWritable) {
		t.Errorf("new file in a 0555 directory: %v, want ErrNotWritable", err)
	}
	if data, _ := os.ReadFile(f); string(data) != "keep\n" {
		t.Errorf("file changed: %q", data)
	}
}

// TestFailedWriteChangesNothing checks that an error from the writer
// leaves the file and the directory as they were.
func TestFailedWriteChangesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	f, err := inplace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Replace(func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	f.Close()
	if !errors.Is(err, boom) {
		t.Errorf("Replace: %v, want boom", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "keep\n" {
		t.Errorf("file changed: %q", data)
	}
	assertNoTemp(t, dir)
}

// TestCancelledWriteChangesNothing checks that a write whose context is
// done midway, in one large write, stops there: the error is the
// context's cause, the file is left as it was (or not made) and no
// temporary file is left.
func TestCancelledWriteChangesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("interrupted")
	big := make([]byte, 64<<20)
	write := func(cancel context.CancelCauseFunc) func(io.Writer) error {
		return func(w io.Writer) error {
			w.Write(big[:1<<20])
			cancel(stop)
			_, err := w.Write(big)
			return err
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	if err := inplace.WriteFileContext(ctx, path, 0o644, write(cancel)); !errors.Is(err, stop) {
		t.Errorf("WriteFileContext over a file: %v, want the cause", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "keep\n" {
		t.Errorf("file changed: %q", data)
	}
	ctx, cancel = context.WithCancelCause(context.Background())
	if err := inplace.WriteFileContext(ctx, filepath.Join(dir, "new"), 0o644, write(cancel)); !errors.Is(err, stop) {
		t.Errorf("WriteFileContext of a new file: %v, want the cause", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("a cancelled write made its file")
	}
	ctx, cancel = context.WithCancelCause(context.Background())
	cancel(stop)
	f, err := inplace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.ReplaceContext(ctx, func(io.Writer) error { return nil }); !errors.Is(err, stop) {
		t.Errorf("ReplaceContext with a done context: %v, want the cause", err)
	}
	assertNoTemp(t, dir)
}

// TestCancelledLockWait checks that WriteFileContext stops waiting for a
// lock another holds when its context is done, and leaves the file as it
// was.
func TestCancelledLockWait(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := inplace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(100*time.Millisecond, func() { cancel(stop) })
	done := make(chan error, 1)
	go func() {
		done <- inplace.WriteFileContext(ctx, path, 0o644, func(w io.Writer) error {
			_, err := io.WriteString(w, "new\n")
			return err
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, stop) {
			t.Errorf("WriteFileContext: %v, want the cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WriteFileContext still waits for the lock after its context is done")
	}
	if data, _ := os.ReadFile(path); string(data) != "keep\n" {
		t.Errorf("file changed: %q", data)
	}
	assertNoTemp(t, dir)
}

// TestWriteFile checks new files, replacement through a symbolic link
// (the link stays, its target changes), and refusing what is not a
// regular file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	path := filepath.Join(dir, "new")
	if err := inplace.WriteFile(path, 0o644, write("one")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && (fi.Mode().Perm()&0o600 != 0o600 || fi.Mode().Perm()&^0o644 != 0) {
		t.Errorf("new file's mode %v, want -rw-r--r-- less the umask", fi.Mode().Perm())
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(dir, "link")
		if err := os.Symlink("new", link); err != nil {
			t.Fatal(err)
		}
		if err := inplace.WriteFile(link, 0o644, write("two")); err != nil {
			t.Fatal(err)
		}
		if li, err := os.Lstat(link); err != nil || li.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v %v", li, err)
		}
		if data, _ := os.ReadFile(path); string(data) != "two" {
			t.Errorf("target %q, want two", data)
		}
	}
	if err := inplace.WriteFile(dir, 0o644, write("x")); err == nil {
		t.Error("WriteFile over a directory succeeded")
	}
	assertNoTemp(t, dir)
}

// TestZeroFile checks that a File Open did not make refuses every method.
func TestZeroFile(t *testing.T) {
	for _, f := range []*inplace.File{nil, {}} {
		if _, err := f.Read(make([]byte, 1)); !errors.Is(err, inplace.ErrNotOpen) {
			t.Errorf("Read: %v", err)
		}
		if err := f.Replace(func(io.Writer) error { return nil }); !errors.Is(err, inplace.ErrNotOpen) {
			t.Errorf("Replace: %v", err)
		}
		if err := f.Close(); !errors.Is(err, inplace.ErrNotOpen) {
			t.Errorf("Close: %v", err)
		}
		if f.Info() != nil {
			t.Error("Info not nil")
		}
	}
}

// ExampleOpen appends a line to a file: the read, the change and the
// write happen under one lock, so concurrent appenders all keep theirs.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "inplace-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "list.txt")
	if err := inplace.WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "first\n")
		return err
	}); err != nil {
		fmt.Println(err)
		return
	}

	f, err := inplace.Open(path) // waits for the exclusive lock
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	old, err := io.ReadAll(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = f.Replace(func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%ssecond\n", old)
		return err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := os.ReadFile(path)
	fmt.Print(string(data))
	// Output:
	// first
	// second
}
