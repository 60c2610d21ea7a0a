package cache

import (
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/bloomcast/bloomcast/internal/storefail"
)

// duBytes is what du says dir takes (blocks of its files and itself),
// in bytes.
func duBytes(t *testing.T, dir string) int64 {
	t.Helper()
	du, err := exec.LookPath("du")
	if err != nil {
		t.Skip("no du")
	}
	out, err := exec.Command(du, "-s", "-B1", dir).Output()
	if err != nil {
		t.Skipf("du -s -B1: %v", err)
	}
	f := strings.Fields(string(out))
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		t.Fatalf("du printed %q", out)
	}
	return n
}

// TestDiskBudgetIsDu fills a disk store with small and larger entries,
// many more than fit, and checks that du, which counts blocks and the
// directory, stays within the budget, and that the store accounts what du
// counts (within the directory's own blocks).
func TestDiskBudgetIsDu(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("du")
	}
	dir := t.TempDir()
	const budget = 1 << 20
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: budget, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sizes := []int{100, 100, 100, 5000, 20000}
	for i := range 300 {
		if err := d.Put(testEntry(keyN(i), 300+sizes[i%len(sizes)])); err != nil {
			t.Fatal(err)
		}
	}
	du := duBytes(t, dir)
	t.Logf("%d entries, accounted %d B, du %d B, budget %d B", d.Len(), d.Bytes(), du, budget)
	if du > budget {
		t.Errorf("du %d B over the budget %d B", du, budget)
	}
	if d.Bytes() < budget*9/10 || d.Bytes() > budget {
		t.Errorf("accounted %d B, want within 10%% under the budget %d B", d.Bytes(), budget)
	}
	if diff := du - d.Bytes(); diff < -int64(d.Len())*direntBytes || diff > 64<<10 {
		t.Errorf("du %d B, accounted %d B: more apart than the directory's own blocks", du, d.Bytes())
	}
	if d.IndexBytes() <= int64(d.Len())*100 {
		t.Errorf("index of %d entries accounted %d B", d.Len(), d.IndexBytes())
	}
	// A reopened store finds the same.
	d2, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: budget, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if d2.Len() != d.Len() || d2.Bytes() != d.Bytes() || d2.IndexBytes() != d.IndexBytes() {
		t.Errorf("reopened: %d entries, %d B, index %d B; was %d, %d, %d",
			d2.Len(), d2.Bytes(), d2.IndexBytes(), d.Len(), d.Bytes(), d.IndexBytes())
	}
}

// TestDiskIndexBudget evicts to keep the in-memory index within
// MaxIndexBytes.
func TestDiskIndexBudget(t *testing.T) {
	one := diskItemSize(keyN(0))
	o := newCheckObserver(t)
	d, err := OpenDisk(DiskConfig{Dir: t.TempDir(), MaxBytes: 1 << 30, MaxIndexBytes: 10 * one, Observer: o, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i := range 30 {
		if err := d.Put(testEntry(keyN(i), 400)); err != nil {
			t.Fatal(err)
		}
	}
	if d.Len() != 10 || d.IndexBytes() != 10*one {
		t.Fatalf("%d entries, index %d B, want 10 and %d", d.Len(), d.IndexBytes(), 10*one)
	}
	o.matches(d)
}

// TestDiskFullIsLoud fills a store on a 512 KiB tmpfs whose budget is
// larger than the file system: the stores that fail with ENOSPC are
// counted, logged once (not once each) and make the store's Fault, which
// ends by itself once there is room again.
func TestDiskFullIsLoud(t *testing.T) {
	mnt := mountTmpfs(t, 512<<10)
	var logs syncBuffer
	o := newCheckObserver(t)
	d, err := OpenDisk(DiskConfig{Dir: filepath.Join(mnt, "cache"), MaxBytes: 10 << 20, Observer: o,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var failed int
	for i := range 400 {
		err := d.Put(testEntry(keyN(i), 400))
		switch {
		case err == nil && failed > 0:
			t.Fatalf("Put %d stored after %d failed", i, failed)
		case err != nil && !errors.Is(err, syscall.ENOSPC):
			t.Fatalf("Put %d: %v, want ENOSPC", i, err)
		case err != nil:
			failed++
		}
	}
	stored := d.Len()
	t.Logf("stored %d, %d failed", stored, failed)
	if failed == 0 || stored == 0 {
		t.Fatalf("stored %d, failed %d: the file system never filled", stored, failed)
	}
	if got := d.Failures()[storefail.NoSpace]; got != uint64(failed) {
		t.Errorf("Failures()[no_space] = %d, want %d", got, failed)
	}
	if d.Fault() == nil || !errors.Is(d.Fault(), syscall.ENOSPC) {
		t.Errorf("Fault() = %v while the disk is full", d.Fault())
	}
	if n := strings.Count(logs.String(), "disk store failing"); n != 1 {
		t.Errorf("%d warnings for %d failures, want 1:\n%s", n, failed, logs.String())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "reason=no_space") {
		t.Errorf("log:\n%s", logs.String())
	}
	// Room again: the next store succeeds and the fault ends.
	for _, k := range d.Keys()[:stored/2] {
		d.Delete(k)
	}
	if err := d.Put(testEntry(keyN(1000), 400)); err != nil {
		t.Fatalf("Put after freeing room: %v", err)
	}
	if d.Fault() != nil {
		t.Errorf("Fault() = %v after a store succeeded", d.Fault())
	}
	if !strings.Contains(logs.String(), "disk store recovered") {
		t.Errorf("no recovery logged:\n%s", logs.String())
	}
	o.matches(d)
}

// TestDiskDirectoryRemoved removes the directory of a running store: the
// next Get misses, the index is dropped (the observer told), the loss is
// counted and logged, and the store makes the directory again and stores
// into it.
func TestDiskDirectoryRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	var logs syncBuffer
	o := newCheckObserver(t)
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Observer: o, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i := range 10 {
		if err := d.Put(testEntry(keyN(i), 400)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Get(keyN(3)); ok {
		t.Fatal("Get of a removed file hit")
	}
	if d.Len() != 0 || d.Bytes() != 0 || d.IndexBytes() != 0 {
		t.Errorf("after the directory went: %d entries, %d B, index %d B", d.Len(), d.Bytes(), d.IndexBytes())
	}
	o.matches(d)
	if d.Failures()[storefail.Missing] == 0 || !strings.Contains(logs.String(), "reason=missing") {
		t.Errorf("failures %v, log:\n%s", d.Failures(), logs.String())
	}
	if err := d.Put(testEntry(keyN(20), 400)); err != nil {
		t.Fatalf("Put after the directory went: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, fileName(keyN(20)))); err != nil {
		t.Fatalf("entry file: %v", err)
	}
	// Removed again, and this time a Put meets it first.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(testEntry(keyN(21), 400)); err != nil {
		t.Fatalf("Put after the directory went again: %v", err)
	}
	if d.Len() != 1 || d.Fault() != nil {
		t.Errorf("%d entries, fault %v; want 1 and none", d.Len(), d.Fault())
	}
	o.matches(d)
}

// TestDiskReadOnlyDirectory makes the store's directory unwritable by
// mounting a read-only tmpfs over it: Puts fail as read_only and make
// the Fault, until the directory is writable again.
func TestDiskReadOnlyDirectory(t *testing.T) {
	mnt := mountTmpfs(t, 1<<20)
	d, err := OpenDisk(DiskConfig{Dir: mnt, MaxBytes: 1 << 20, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Put(testEntry(keyN(0), 400)); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-o", "remount,ro", mnt).CombinedOutput(); err != nil {
		t.Skipf("remount ro: %v %s", err, out)
	}
	err = d.Put(testEntry(keyN(1), 400))
	if err == nil || storefail.Reason(err) != storefail.ReadOnly || d.Fault() == nil || d.Failures()[storefail.ReadOnly] != 1 {
		t.Fatalf("Put on a read-only file system: %v (%s), fault %v, failures %v", err, storefail.Reason(err), d.Fault(), d.Failures())
	}
	if out, err := exec.Command("mount", "-o", "remount,rw", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount rw: %v %s", err, out)
	}
	if err := d.Put(testEntry(keyN(2), 400)); err != nil || d.Fault() != nil {
		t.Fatalf("Put once writable: %v, fault %v", err, d.Fault())
	}
}
