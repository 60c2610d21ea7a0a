package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal and returns its terminal side, which
// isTerminal must see as a terminal; whatever is written to it is read
// and discarded.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	master, tty := openPTYPair(t)
	go io.Copy(io.Discard, master)
	return tty
}

// openPTYPair opens a pseudo-terminal and returns its controlling side,
// which writes what the terminal side reads, and its terminal side.
func openPTYPair(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal side: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return master, tty
}

// TestKeysFromTerminalSaySo: reading keys from a terminal says so on
// standard error, with how to end; from a pipe or file it does not.
func TestKeysFromTerminalSaySo(t *testing.T) {
	master, tty := openPTYPair(t)
	// Two keys, then one Ctrl-D (VEOF) at the start of a line: the end of
	// the input, which a terminal reports once.
	if _, err := master.WriteString("a\nb\n\x04"); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, master)
	out := filepath.Join(t.TempDir(), "f.bf")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"build", "-o", out}, tty, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stderr.String() != "bloomcast: reading keys from the terminal, one per line; end with Ctrl-D (on Windows Ctrl-Z, Enter)\n" {
		t.Fatalf("stderr %q", stderr.String())
	}
	if r := inspectJSON(t, out); r.Count != 2 {
		t.Fatalf("count %d, want 2", r.Count)
	}
	if r := bc(t, "a\n", "build", "-o", out); r.stderr != "" {
		t.Fatalf("from a pipe: stderr %q", r.stderr)
	}
}

// TestBinaryOutputToTerminal checks that a filter or delta written to
// standard output when that is a terminal, or to -o naming a terminal, is
// refused unless --force, and that /dev/null (a character device, not a
// terminal) is not refused.
func TestBinaryOutputToTerminal(t *testing.T) {
	tty := openPTY(t)
	if !isTerminal(tty) {
		t.Fatal("isTerminal(pty) = false")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "f.bf")
	ok(t, "a\nb\n", "build", "-m", "8192", "-k", "3", "-o", f)
	for _, args := range [][]string{
		{"build", "-o", "-"},
		{"union", "-o", "-", f, f},
		{"fold", "-o", "-", f},
		{"compress", "-o", "-", f},
		{"decompress", "-o", "-", f},
		{"diff", f, f},
		{"bloomier", "build", "-o", "-"},
		{"mht", "build", "-o", "-"},
		{"build", "--fpset", "-o", "-"},
	} {
		var stderr bytes.Buffer
		stdin := "a\t1\n"
		code := run(args, strings.NewReader(stdin), tty, &stderr)
		if code != 2 || stderr.String() != "bloomcast: stdout: is a terminal: binary output refused (redirect it, or add --force)\n" {
			t.Errorf("%q to a terminal: exit %d, stderr %q", args, code, stderr.String())
		}
		stderr.Reset()
		if code := run(append(args, "--force"), strings.NewReader(stdin), tty, &stderr); code != 0 || stderr.Len() != 0 {
			t.Errorf("%q --force to a terminal: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	// -o naming the terminal (/dev/stdout on a terminal): the same.
	var stderr0 bytes.Buffer
	if code := run([]string{"build", "-o", tty.Name()}, strings.NewReader("a\n"), io.Discard, &stderr0); code != 2 ||
		stderr0.String() != "bloomcast: "+tty.Name()+": is a terminal: binary output refused (redirect it, or add --force)\n" {
		t.Errorf("build -o %s: exit %d, stderr %q", tty.Name(), code, stderr0.String())
	}
	if r := bc(t, "a\n", "build", "--force", "-o", tty.Name()); r.code != 0 || r.stderr != "" {
		t.Errorf("build --force -o %s: exit %d, stderr %q", tty.Name(), r.code, r.stderr)
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var stderr bytes.Buffer
	if code := run([]string{"build", "-o", "-"}, strings.NewReader("a\n"), null, &stderr); code != 0 {
		t.Errorf("build -o - > /dev/null: exit %d, stderr %q", code, stderr.String())
	}
}
