package cache

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/storefail"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestDiskPersistsAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	o := newCheckObserver(t)
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Observer: o})
	if err != nil {
		t.Fatal(err)
	}
	e := &Entry{
		URL: "http://example.com/a", Status: 200,
		Header:      http.Header{"Content-Type": {"text/plain"}, "Vary": {"Accept"}, "Set-Cookie": {"a", "b"}},
		ReqHeader:   http.Header{"Accept": {"text/*"}},
		Body:        []byte("hello"),
		RequestTime: t0, ResponseTime: t0.Add(time.Millisecond),
	}
	for i, k := range []string{"http://example.com/a", "http://example.com/b", "http://example.com/c"} {
		ee := *e
		ee.URL = k
		if err := d.Put(&ee); err != nil {
			t.Fatal(err)
		}
		// Distinct modification times, oldest first.
		mt := time.Now().Add(time.Duration(i-10) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, fileName(k)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	d.Delete("http://example.com/b")
	bytesBefore := d.Bytes()
	d.Close()
	if err := d.Put(e); !errors.Is(err, ErrClosed) {
		t.Fatalf("Put after Close: %v", err)
	}

	o2 := newCheckObserver(t)
	d2, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Observer: o2})
	if err != nil {
		t.Fatal(err)
	}
	if d2.Len() != 2 || d2.Bytes() != bytesBefore {
		t.Fatalf("reopened: Len %d Bytes %d, want 2 and %d", d2.Len(), d2.Bytes(), bytesBefore)
	}
	o2.matches(d2)
	got, ok := d2.Get("http://example.com/a")
	if !ok {
		t.Fatal("entry lost across reopen")
	}
	if got.URL != e.URL || got.Status != 200 || !bytes.Equal(got.Body, e.Body) ||
		!got.RequestTime.Equal(e.RequestTime) || !got.ResponseTime.Equal(e.ResponseTime) ||
		strings.Join(got.Header.Values("Set-Cookie"), ",") != "a,b" || got.ReqHeader.Get("Accept") != "text/*" {
		t.Fatalf("reopened entry %+v differs from %+v", got, e)
	}
	d2.Close()

	// A smaller budget at open keeps the most recently modified entry.
	o3 := newCheckObserver(t)
	d3, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: bytesBefore/2 + 10, Observer: o3})
	if err != nil {
		t.Fatal(err)
	}
	defer d3.Close()
	if keys := d3.Keys(); len(keys) != 1 || keys[0] != "http://example.com/c" {
		t.Fatalf("kept %v, want the newest (c)", keys)
	}
	o3.matches(d3)
	if n := countFiles(t, dir); n != 1 {
		t.Fatalf("%d files left, want 1", n)
	}
}

func countFiles(t *testing.T, dir string) int {
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(des)
}

// logBuffer collects slog output.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewTextHandler(&b, nil)), &b
}

func TestDiskDropsCorruptEntries(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := d.Put(testEntry(keyN(i), 1000)); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	path := func(i int) string { return filepath.Join(dir, fileName(keyN(i))) }
	// 0: truncated; 1: a flipped byte; 2: renamed to another key's name;
	// 3: intact. Plus an interrupted write and an unrelated file.
	b, _ := os.ReadFile(path(0))
	os.WriteFile(path(0), b[:len(b)/2], 0o644)
	b, _ = os.ReadFile(path(1))
	b[40] ^= 1
	os.WriteFile(path(1), b, 0o644)
	os.Rename(path(2), filepath.Join(dir, fileName("http://other/")))
	os.WriteFile(filepath.Join(dir, tempPrefix+"123"), []byte("partial"), 0o644)
	os.WriteFile(filepath.Join(dir, "README"), []byte("not an entry"), 0o644)

	log, logged := logBuffer()
	o := newCheckObserver(t)
	d2, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Observer: o, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if keys := d2.Keys(); len(keys) != 1 || keys[0] != keyN(3) {
		t.Fatalf("kept %v, want only %s", keys, keyN(3))
	}
	o.matches(d2)
	if n := strings.Count(logged.String(), "dropped corrupt disk entry"); n != 3 {
		t.Fatalf("%d drops logged, want 3:\n%s", n, logged)
	}
	if n := countFiles(t, dir); n != 2 { // the entry and README
		t.Fatalf("%d files left, want 2", n)
	}

	// Corruption found by a later Get: a miss, the file deleted, Evicted.
	b, _ = os.ReadFile(path(3))
	os.WriteFile(path(3), b[:10], 0o644)
	if _, ok := d2.Get(keyN(3)); ok {
		t.Fatal("Get returned a truncated entry")
	}
	if d2.Len() != 0 || d2.Bytes() != 0 {
		t.Fatalf("Len %d Bytes %d after the drop", d2.Len(), d2.Bytes())
	}
	o.matches(d2)
	if _, err := os.Stat(path(3)); !os.IsNotExist(err) {
		t.Fatalf("corrupt file not deleted: %v", err)
	}
}

// TestDiskSyncsDirectory checks that every Put syncs the directory after
// its rename (a rename is durable only once its directory is synced:
// rename(2), fsync(2)), and that syncing a directory reports its errors.
func TestDiskSyncsDirectory(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i, k := range []string{"http://example.com/a", "http://example.com/b", "http://example.com/a"} {
		if err := d.Put(&Entry{URL: k, Status: 200, Header: http.Header{}, Body: []byte("x")}); err != nil {
			t.Fatal(err)
		}
		d.mu.Lock()
		n := d.syncs
		d.mu.Unlock()
		if n != uint64(i+1) {
			t.Fatalf("after %d puts, %d directory syncs", i+1, n)
		}
	}
	if err := syncDir(dir); err != nil {
		t.Fatalf("syncing the store's directory: %v", err)
	}
	if runtime.GOOS != "windows" {
		if err := syncDir(filepath.Join(dir, "missing")); err == nil {
			t.Fatal("syncing a missing directory succeeded")
		}
	}
}

// TestDiskDeleteSyncsDirectory checks that a Delete syncs the directory
// after removing the file (an unlink, like a rename, is durable only once
// its directory is synced), that a Delete of a key not held syncs nothing,
// and that a sync that fails is counted but is not the store's fault. A
// power loss cannot be made here: the test sees the sync done, not what a
// disk keeps without it.
func TestDiskDeleteSyncsDirectory(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	syncs := func() uint64 {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.syncs
	}
	keys := []string{"http://example.com/a", "http://example.com/b"}
	for _, k := range keys {
		if err := d.Put(&Entry{URL: k, Status: 200, Header: http.Header{}, Body: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	before := syncs()
	if !d.Delete(keys[0]) {
		t.Fatal("Delete of a stored key returned false")
	}
	if n := syncs() - before; n != 1 {
		t.Fatalf("a Delete made %d directory syncs, want 1", n)
	}
	if _, err := os.Stat(d.path(keys[0])); !os.IsNotExist(err) {
		t.Fatalf("the deleted entry's file: %v", err)
	}
	if d.Delete(keys[0]) || syncs()-before != 1 {
		t.Fatalf("a Delete of a key not held: %d directory syncs in all, want 1", syncs()-before)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	d.Delete(keys[1])
	if d.Failures()[storefail.Missing] == 0 || d.Fault() != nil || syncs()-before != 1 {
		t.Errorf("a Delete whose directory is gone: failures %v, fault %v, %d syncs; want a missing failure, no fault, no sync", d.Failures(), d.Fault(), syncs()-before)
	}
}

// TestDiskOpenJunkBoundedAlloc opens a store whose directory holds large
// files named as entries that are not (another program's, or damaged):
// each is dropped and logged, and opening allocates far less than the
// files' bytes, so that junk within the budget cannot exhaust the memory
// of a node starting. The entries beside them are kept.
func TestDiskOpenJunkBoundedAlloc(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 30, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := d.Put(testEntry(keyN(i), 1000)); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	const junk = 16 << 20
	good, err := os.ReadFile(filepath.Join(dir, fileName(keyN(0))))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		fileName("http://junk/1"): bytes.Repeat([]byte{0xff}, junk),
		// An entry's head, then junk: the URL reads, the checksum fails.
		fileName("http://junk/2"): append(good[:len(good)-4:len(good)-4], make([]byte, junk)...),
		// A URL length beyond the file.
		fileName("http://junk/3"): append([]byte("BCCE\x01\xff\xff\xff\xff\x0f"), make([]byte, junk)...),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	log, logged := logBuffer()
	d2, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 30, Logger: log})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > junk/4 {
		t.Errorf("opening allocated %d bytes for %d files of %d bytes of junk", alloc, len(files), junk)
	}
	if d2.Len() != 3 {
		t.Errorf("%d entries kept, want 3", d2.Len())
	}
	if n := strings.Count(logged.String(), "dropped corrupt disk entry"); n != len(files) {
		t.Errorf("%d drops logged, want %d:\n%s", n, len(files), logged)
	}
	if n := countFiles(t, dir); n != 3 {
		t.Errorf("%d files left, want the 3 entries", n)
	}
	if e, ok := d2.Get(keyN(0)); !ok || len(e.Body) != 700 {
		t.Errorf("entry kept beside the junk: %v", ok)
	}
}

// TestScanEntryDamage checks the scan at open against an entry file cut
// at every length and with every byte changed: each is corrupt, and the
// whole file gives its URL.
func TestScanEntryDamage(t *testing.T) {
	dir := t.TempDir()
	e := testEntry("http://example.com/scan", 400)
	b := appendEntry(nil, e)
	name := fileName(e.URL)
	path := filepath.Join(dir, name)
	scan := func(b []byte) (string, error) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return scanEntry(path, name)
	}
	if url, err := scan(b); err != nil || url != e.URL {
		t.Fatalf("whole file: %q, %v", url, err)
	}
	for n := range len(b) {
		if _, err := scan(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d of %d bytes: %v", n, len(b), err)
		}
	}
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x10
		if _, err := scan(c); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d changed: %v", i, err)
		}
	}
	if _, err := scanEntry(filepath.Join(dir, "missing.bce"), "missing.bce"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// TestDiskWarnsOfForeignFiles opens a store whose directory holds files
// it did not write and cannot take for entries: they are left alone, and
// one warning names how many and one of them, as they take disk outside
// the budget.
func TestDiskWarnsOfForeignFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README"), []byte("not an entry"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub.bce"), 0o755)
	os.Mkdir(filepath.Join(dir, "lost+found"), 0o700)
	log, logged := logBuffer()
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n := strings.Count(logged.String(), "not its entries"); n != 1 || !strings.Contains(logged.String(), "count=2") {
		t.Fatalf("warnings:\n%s", logged)
	}
	if n := countFiles(t, dir); n != 3 {
		t.Fatalf("%d files left, want 3", n)
	}
}
