package hits

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestFIFOOverlay: goroutines blocked reading eight connections, made
// readable 0 first while the only P was busy, run newest first on the
// runtime as it is and in the order the connections became readable
// with FIFOOverlay (testdata/wakeorder). The first half is what the
// hits run's reading of Go's tail rests on; if a Go release changes it,
// this test says so. A run may see the order broken by the system
// monitor's own poll, so each build gets three runs to show it.
func TestFIFOOverlay(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the overlay edits the epoll poller")
	}
	if testing.Short() {
		t.Skip("builds the runtime with the overlay")
	}
	dir := t.TempDir()
	overlay, err := FIFOOverlay(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		flags      []string
	}{
		{"stock", "7 6 5 4 3 2 1 0", nil},
		{"fifo", "0 1 2 3 4 5 6 7", []string{"-overlay=" + overlay}},
	} {
		bin := filepath.Join(dir, "wakeorder-"+c.name)
		args := append(append([]string{"build"}, c.flags...), "-o", bin, "./testdata/wakeorder")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var got []string
		for range 3 {
			out, err := exec.Command(bin).Output()
			if err != nil {
				t.Fatalf("%s: %v", bin, err)
			}
			if got = append(got, strings.TrimSpace(string(out))); got[len(got)-1] == c.want {
				break
			}
		}
		if got[len(got)-1] != c.want {
			t.Errorf("%s runtime: goroutines ran in the orders %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFIFOOverlayRefusesAnotherPoller: no overlay is written for a
// poller whose netpoll does not end as the edit expects, or ends so
// twice; one that does gets the reversal.
func TestFIFOOverlayRefusesAnotherPoller(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"other": "package runtime\n\nfunc netpoll() (gList, int32) {\n\treturn gList{}, 0\n}\n",
		"twice": "package runtime\n" + netpollTail + netpollTail,
		"once":  "package runtime\n\nfunc netpoll() {\n\tvar toRun gList\n" + netpollTail,
	} {
		orig := filepath.Join(dir, name+".go")
		if err := os.WriteFile(orig, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay, err := fifoOverlayOf(orig, dir)
		if (err == nil) != (name == "once") {
			t.Errorf("%s: overlay %q, error %v", name, overlay, err)
		}
	}
	patched, err := os.ReadFile(filepath.Join(dir, "netpoll_epoll_fifo.go"))
	if err != nil || !strings.Contains(string(patched), "fifo.push(toRun.pop())") || strings.Contains(string(patched), netpollTail) {
		t.Errorf("the patched poller: %q, %v", patched, err)
	}
}
