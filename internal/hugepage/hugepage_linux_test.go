//go:build linux && !purego

package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestWordsHuge checks, where the build advises and the system grants
// transparent huge pages, that a large array gets them, both fresh from
// the operating system and written before the advice: the kernel's
// AnonHugePages for the mapping that holds it covers at least one huge
// page.
func TestWordsHuge(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("transparent huge pages are not available here")
	}
	w := Words(16 << 20 / 8)
	for i := range w {
		w[i] = uint64(i)
	}
	checkHuge(t, "fresh", w)

	// Memory the heap reuses was written before the advice; advise
	// collapses it. Written here by hand, to be sure of it.
	touched := make([]uint64, 16<<20/8)
	for i := range touched {
		touched[i] = 1
	}
	advise(touched)
	checkHuge(t, "touched", touched)
}

func checkHuge(t *testing.T, what string, w []uint64) {
	t.Helper()
	// The first whole huge page of w: the part before it is not advised,
	// and belongs to another mapping.
	start := uintptr(unsafe.Pointer(&w[0]))
	kb, err := anonHugeKB((start + Size - 1) &^ (Size - 1))
	if err != nil {
		t.Fatal(err)
	}
	if kb < Size/1024 {
		t.Errorf("%s: a 16 MiB array has %d kB on huge pages, want at least %d", what, kb, Size/1024)
	}
	runtime.KeepAlive(w)
}

// anonHugeKB returns AnonHugePages of the mapping in /proc/self/smaps that
// contains addr.
func anonHugeKB(addr uintptr) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= a && uint64(addr) < b
			continue
		}
		if in && fields[0] == "AnonHugePages:" {
			return strconv.Atoi(fields[1])
		}
	}
	return 0, fmt.Errorf("no mapping holds %#x", addr)
}
