package cache

import (
	"bufio"
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// DiskConfig configures a [Disk] store.
// The zero DiskConfig is not valid: OpenDisk reports ErrConfig, as MaxBytes
// must be positive.
type DiskConfig struct {
	Dir string // directory of the entry files; created if missing
	// MaxBytes is the budget of the bytes on disk, as du counts them:
	// each entry file rounded up to the file system's blocks, plus
	// direntBytes of directory entry; it must be positive.
	MaxBytes int64
	// MaxIndexBytes, if positive, is the budget of the index the store
	// keeps in memory, accounted as a Memory store accounts its own
	// (IndexBytes); 0 means none.
	MaxIndexBytes int64
	Observer      Observer     // told of every store and removal; nil for none
	Logger        *slog.Logger // where failures and dropped entries are reported; nil for slog.Default()
}

// direntBytes is what a [Disk] store charges for each file beyond its
// blocks: its directory entry (a name of 36 bytes: about 44 in ext4, and
// the directory's blocks grow with them) rounded up.
const direntBytes = 64

// Disk is a Store that keeps each entry in its own file under a directory,
// so the cache survives a restart. A Put writes a temporary file, syncs it,
// renames it over the entry's file and syncs the directory (where the
// system allows it: not on Windows), so a crash leaves either the old
// entry or the new one, never a mixture, and an entry that Put stored is
// still there after a power loss. A Delete syncs the directory after
// removing the file, so an entry deleted does not come back after a power
// loss either; entries evicted for room are not synced one by one (the
// next Put's sync covers them, and an open deletes what exceeds the
// budget). The index (key, file, size, and
// the least-recently-used order) lives in memory and is rebuilt when the
// store opens by reading every entry file; the recency order at open is
// the files' modification times.
//
// Each file holds one entry in a checksummed format (CRC-32C). A file that
// is truncated, corrupt, or not an entry file at all is deleted and
// logged, whether it is found at open or at a later Get; the store never
// fails because of one. Files of other names, and directories, are left
// alone, and a warning at open says how many there are.
//
// What it charges for an entry against MaxBytes is what du counts for its
// file: the blocks the file system allocated for it (st_blocks, at least
// its size rounded up to the block size statfs reports) plus 64 bytes
// (direntBytes) for its directory entry, so that a budget bounds the disk
// used and not just the bytes written.
//
// A file operation that fails (a full file system, the directory removed
// or read-only, an I/O error) is counted by reason ([Disk.Failures]) and
// logged at warning level, at most once a minute per reason. A failed
// write is the store's fault ([Disk.Fault]) until a write succeeds again;
// the store goes on trying with every Put, so it recovers by itself when
// the fault clears. A directory removed under the store is made again,
// and the entries it held are dropped from the index (reported Evicted).
//
// The zero Disk is not usable; make one with OpenDisk.
type Disk struct {
	dir string
	log *slog.Logger
	obs Observer

	block  int64 // the file system's block size
	faults *faults

	mu       sync.Mutex
	max      int64
	maxIndex int64 // 0: none
	bytes    int64
	index    int64 // IndexBytes
	gen      uint64
	lru      *list.List // of *diskItem, most recently used first
	items    map[string]*list.Element
	closed   bool
	syncs    uint64 // directory syncs done (for the tests)
}

// diskItem is the index record of one entry file.
type diskItem struct {
	key  string
	size int64  // charged bytes on disk (du's count)
	gen  uint64 // distinguishes successive files of one key
}

const (
	entrySuffix = ".bce"
	tempPrefix  = ".tmp-"
)

// OpenDisk opens (or creates) a disk store in cfg.Dir and rebuilds its
// index. A directory it cannot write a file in is refused. Entries beyond the budget, least recently modified first, are
// deleted; every entry kept is reported to the Observer as Stored.
func OpenDisk(cfg DiskConfig) (*Disk, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: Dir is empty", ErrConfig)
	}
	if cfg.MaxBytes <= 0 || cfg.MaxIndexBytes < 0 {
		return nil, fmt.Errorf("%w: MaxBytes %d must be positive, MaxIndexBytes %d not negative", ErrConfig, cfg.MaxBytes, cfg.MaxIndexBytes)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: disk store: %w", err)
	}
	if err := probeWrite(cfg.Dir); err != nil {
		return nil, err
	}
	d := &Disk{
		dir:      cfg.Dir,
		log:      cfg.Logger,
		obs:      observerOrNop(cfg.Observer),
		max:      cfg.MaxBytes,
		maxIndex: cfg.MaxIndexBytes,
		block:    fsBlockSize(cfg.Dir),
		lru:      list.New(),
		items:    make(map[string]*list.Element),
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	d.faults = newFaults(d.log)
	if err := d.load(); err != nil {
		return nil, err
	}
	return d, nil
}

// probeWrite makes and removes a temporary file in dir, so that a store
// in a directory it cannot write in (its permissions, a read-only file
// system) is refused when it opens, not found failing at every Put once
// serving. The file has the temporary files' prefix: one left behind is
// removed at the next open.
func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cache: disk store: cannot write in %s: %w", dir, err)
	}
	return errors.Join(f.Close(), os.Remove(f.Name()))
}

// load scans the directory and fills the index.
func (d *Disk) load() error {
	des, err := os.ReadDir(d.dir)
	if err != nil {
		return fmt.Errorf("cache: disk store: %w", err)
	}
	type found struct {
		key   string
		size  int64
		mtime time.Time
	}
	var all []found
	var foreign int
	var firstForeign string
	for _, de := range des {
		name := de.Name()
		path := filepath.Join(d.dir, name)
		switch {
		case strings.HasPrefix(name, tempPrefix):
			_ = os.Remove(path) // an interrupted write; if it stays, the next open tries again
			continue
		case name == "lost+found" && de.IsDir():
			continue // the directory is a file system's root
		case !strings.HasSuffix(name, entrySuffix) || !de.Type().IsRegular():
			if foreign++; foreign == 1 {
				firstForeign = name
			}
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		size := d.charge(info.Size(), fileBlocks(info))
		if size > d.max {
			d.drop(path, fmt.Errorf("%w: file of %d bytes exceeds the budget", ErrCorrupt, info.Size()))
			continue
		}
		key, err := scanEntry(path, name)
		if err != nil {
			d.drop(path, err)
			continue
		}
		all = append(all, found{key, size, info.ModTime()})
	}
	if foreign > 0 {
		// Not the store's to remove, but they take disk outside its budget.
		d.log.Warn("cache: disk store directory holds files that are not its entries; left alone",
			"dir", d.dir, "count", foreign, "first", firstForeign)
	}
	// Most recently modified first; keep what fits.
	sort.Slice(all, func(i, j int) bool { return all[i].mtime.After(all[j].mtime) })
	for _, f := range all {
		if d.bytes+f.size > d.max || d.maxIndex > 0 && d.index+diskItemSize(f.key) > d.maxIndex {
			// Over budget: not indexed either way; a file that cannot
			// be removed is met again, and tried again, at the next open.
			_ = os.Remove(filepath.Join(d.dir, fileName(f.key)))
			continue
		}
		d.gen++
		d.items[f.key] = d.lru.PushBack(&diskItem{key: f.key, size: f.size, gen: d.gen})
		d.bytes += f.size
		d.index += diskItemSize(f.key)
		d.obs.Stored(f.key)
	}
	return nil
}

// charge is what a file of size bytes, of which the file system
// allocated blocks bytes (0: unknown), is charged: du's count of it and
// its directory entry.
func (d *Disk) charge(size, blocks int64) int64 {
	return max((size+d.block-1)/d.block*d.block, blocks) + direntBytes
}

// drop deletes a bad entry file and logs why.
func (d *Disk) drop(path string, why error) {
	rmErr := os.Remove(path)
	if errors.Is(rmErr, fs.ErrNotExist) {
		rmErr = nil
	}
	d.faults.count(why)
	d.log.Warn("cache: dropped corrupt disk entry", "file", path, "err", why, "removeErr", rmErr)
}

// fileName is the name of a key's entry file: a hash of the key, so any
// URL maps to a safe, fixed-length name.
func fileName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16]) + entrySuffix
}

func (d *Disk) path(key string) string { return filepath.Join(d.dir, fileName(key)) }

// readEntry reads and decodes one entry file.
func readEntry(path string) (*Entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeEntry(b)
}

// scanEntry checks the entry file at path, named name, and returns the
// URL it holds. It reads the file through a small buffer, checking its
// checksum and that the URL hashes to the name, and allocates the URL
// only then: a file the store did not write, however large, costs no
// more memory than a buffer. The rest of the entry is checked when Get
// decodes it.
func scanEntry(path, name string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only: nothing is lost if closing fails
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	n := fi.Size()
	if n < int64(len(entryMagic))+4 {
		return "", fmt.Errorf("%w: %d bytes is too short", ErrCorrupt, n)
	}
	sum := crc32.New(castagnoli)
	r := bufio.NewReader(io.TeeReader(io.LimitReader(f, n-4), sum))
	urlHash := sha256.New()
	head := make([]byte, len(entryMagic))
	if _, err := io.ReadFull(r, head); err != nil {
		return "", fmt.Errorf("%w: truncated magic: %w", ErrCorrupt, err)
	}
	urlLen, err := binary.ReadUvarint(r)
	if err == nil && urlLen > uint64(n) {
		err = fmt.Errorf("url length %d exceeds the file's %d bytes", urlLen, n)
	}
	if err == nil {
		_, err = io.CopyN(urlHash, r, int64(urlLen))
	}
	if err == nil {
		_, err = io.Copy(io.Discard, r)
	}
	var tail [4]byte
	if err == nil {
		_, err = f.ReadAt(tail[:], n-4)
	}
	if err != nil {
		if isPathError(err) {
			return "", err
		}
		return "", fmt.Errorf("%w: %w", ErrCorrupt, err) // short, or a bad varint
	}
	if got, want := sum.Sum32(), binary.LittleEndian.Uint32(tail[:]); got != want {
		return "", fmt.Errorf("%w: checksum %08x, stored %08x", ErrCorrupt, got, want)
	}
	if hex.EncodeToString(urlHash.Sum(nil)[:16])+entrySuffix != name {
		return "", fmt.Errorf("%w: file name does not match the URL it holds", ErrCorrupt)
	}
	url, err := readURL(f, urlLen)
	if err == nil && fileName(url) != name {
		// Only a length encoded in more bytes than needed gets here.
		err = fmt.Errorf("%w: file name does not match the URL it holds", ErrCorrupt)
	}
	return url, err
}

// readURL reads the URL, of urlLen bytes, of an entry file whose
// checksum is verified.
func readURL(f *os.File, urlLen uint64) (string, error) {
	off := int64(len(entryMagic)) + int64(len(binary.AppendUvarint(nil, urlLen)))
	b := make([]byte, urlLen)
	if _, err := f.ReadAt(b, off); err != nil {
		return "", fmt.Errorf("%w: url: %w", ErrCorrupt, err)
	}
	return string(b), nil
}

// isPathError reports whether err is a failure of the file system, not of
// the file's contents.
func isPathError(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}

// Get implements Store. It reads the entry's file; a file found corrupt is
// deleted, logged and reported as Evicted, and Get reports a miss, as
// for a file that cannot be read (a failure, counted and logged).
func (d *Disk) Get(key string) (*Entry, bool) {
	d.mu.Lock()
	el, ok := d.items[key]
	if !ok || d.closed {
		d.mu.Unlock()
		return nil, false
	}
	d.lru.MoveToFront(el)
	gen := el.Value.(*diskItem).gen
	d.mu.Unlock()

	e, err := readEntry(d.path(key))
	if err == nil && e.URL != key {
		err = fmt.Errorf("%w: file holds URL %q", ErrCorrupt, e.URL)
	}
	if err == nil {
		return e, true
	}
	if errors.Is(err, fs.ErrNotExist) && d.lostDir() {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	// Only if the file read is still the indexed one: a concurrent Put or
	// eviction may have replaced or removed it.
	if el, ok := d.items[key]; ok && el.Value.(*diskItem).gen == gen {
		d.remove(el, false)
		if errors.Is(err, ErrCorrupt) {
			d.drop(d.path(key), err)
		} else {
			// Unreadable: the file goes too, if it can.
			d.faults.failed(d.dir, "read", false, err)
			_ = os.Remove(d.path(key))
		}
	}
	return nil, false
}

// lostDir reports whether the store's directory is gone. If it is, the
// index is dropped (every entry reported Evicted) and the directory made
// again, so that the store goes on from empty.
func (d *Disk) lostDir() bool {
	if _, err := os.Stat(d.dir); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	d.mu.Lock()
	if !d.closed {
		for d.lru.Len() > 0 {
			d.remove(d.lru.Back(), false)
		}
	}
	d.mu.Unlock()
	d.faults.failed(d.dir, "directory removed; entries dropped", false, fs.ErrNotExist)
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		d.faults.failed(d.dir, "make directory", true, err)
	}
	return true
}

// Put implements Store. A failed write is counted, logged (at most once
// a minute per reason) and returned; it is the store's Fault until a
// Put writes again.
func (d *Disk) Put(e *Entry) (err error) {
	if e == nil {
		return errNilEntry
	}
	b := appendEntry(nil, e)
	size := d.charge(int64(len(b)), 0)
	var tmp string
	if size <= d.max {
		var blocks int64
		tmp, blocks, err = d.writeTemp(b)
		if errors.Is(err, fs.ErrNotExist) {
			if d.lostDir() {
				tmp, blocks, err = d.writeTemp(b)
			} else {
				d.faults.failed(d.dir, "create", true, err)
			}
		}
		size = d.charge(int64(len(b)), blocks)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		if tmp != "" {
			_ = os.Remove(tmp) // a temporary file left behind is removed at the next open
		}
		return ErrClosed
	}
	old, had := d.items[e.URL]
	if had {
		d.remove(old, false) // the file is replaced or removed below
	}
	final := d.path(e.URL)
	isize := diskItemSize(e.URL)
	switch {
	case size > d.max || d.maxIndex > 0 && isize > d.maxIndex:
		if tmp != "" {
			_ = os.Remove(tmp) // as above
		}
		err = fmt.Errorf("%w: %d bytes on disk, budget %d", ErrTooLarge, size, d.max)
	case err == nil:
		if err = os.Rename(tmp, final); err != nil {
			_ = os.Remove(tmp) // as above; the rename's error is the one to report
			err = fmt.Errorf("cache: disk store: %w", err)
			d.faults.failed(d.dir, "rename", true, err)
			break
		}
		// The rename is in the directory: without syncing it, a power
		// loss may leave the old entry, or none, after Put returned.
		if err = syncDir(d.dir); err != nil {
			_ = os.Remove(final)
			err = fmt.Errorf("cache: disk store: %w", err)
			d.faults.failed(d.dir, "sync directory", true, err)
			break
		}
		d.syncs++
	}
	if err != nil {
		if had {
			// The old entry is out of the index already; a file that
			// stays is loaded again by the next open, as the old entry,
			// which freshness then judges like any other.
			_ = os.Remove(final)
		}
		return err
	}
	d.faults.wrote(d.dir)
	for d.lru.Len() > 0 && (d.bytes+size > d.max || d.maxIndex > 0 && d.index+isize > d.maxIndex) {
		d.remove(d.lru.Back(), true)
	}
	d.gen++
	d.items[e.URL] = d.lru.PushFront(&diskItem{key: e.URL, size: size, gen: d.gen})
	d.bytes += size
	d.index += isize
	d.obs.Stored(e.URL)
	return nil
}

// writeTemp writes b to a new temporary file in the store's directory and
// syncs it, returning its path and the bytes the file system allocated
// for it (0: unknown). A failure is counted and logged.
func (d *Disk) writeTemp(b []byte) (string, int64, error) {
	f, err := os.CreateTemp(d.dir, tempPrefix+"*")
	if err != nil {
		err = fmt.Errorf("cache: disk store: %w", err)
		if !errors.Is(err, fs.ErrNotExist) { // a directory gone is lostDir's to report
			d.faults.failed(d.dir, "create", true, err)
		}
		return "", 0, err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	var blocks int64
	if err == nil {
		if fi, serr := f.Stat(); serr == nil {
			blocks = fileBlocks(fi)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name()) // left behind, it is removed at the next open; the write's error is the one to report
		err = fmt.Errorf("cache: disk store: %w", err)
		d.faults.failed(d.dir, "write", true, err)
		return "", 0, err
	}
	return f.Name(), blocks, nil
}

// remove drops an index record, deleting its file if asked, and reports
// the eviction; d.mu is held.
func (d *Disk) remove(el *list.Element, deleteFile bool) {
	it := d.lru.Remove(el).(*diskItem)
	delete(d.items, it.key)
	d.bytes -= it.size
	d.index -= diskItemSize(it.key)
	if deleteFile {
		if err := os.Remove(d.path(it.key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			d.faults.failed(d.dir, "remove", false, err)
		}
	}
	d.obs.Evicted(it.key)
}

// Delete implements Store. It syncs the directory after removing the
// file, as Put does after its rename: the proxy deletes a response it
// knows to be obsolete (invalidated by an unsafe request, or not the one
// a 304 selects), which, with the removal lost to a power loss, the next
// open would load again and serve.
func (d *Disk) Delete(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	el, ok := d.items[key]
	if ok && !d.closed {
		d.remove(el, true)
		d.syncRemoval()
	}
	return ok && !d.closed
}

// syncRemoval syncs the directory after a removal; a failure is counted
// and logged, not the store's fault (no write failed). d.mu is held.
func (d *Disk) syncRemoval() {
	if err := syncDir(d.dir); err != nil {
		d.faults.failed(d.dir, "sync directory", false, fmt.Errorf("cache: disk store: %w", err))
		return
	}
	d.syncs++
}

// Len implements Store.
func (d *Disk) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.items)
}

// Bytes implements Store: the bytes on disk, as du counts them, of the
// entries' files (DiskConfig.MaxBytes).
func (d *Disk) Bytes() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bytes
}

// IndexBytes is the heap the store's index holds: per entry its record,
// key, list element and map slot, accounted as a Memory store accounts
// its own.
func (d *Disk) IndexBytes() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.index
}

// Fault returns the error of the last write if it failed, nil once a
// write succeeds again (or none has failed).
func (d *Disk) Fault() error { return d.faults.fault() }

// Failures returns the failed file operations so far by reason:
// no_space, missing, read_only, corrupt or io (the label values of a
// node's bloomcast_store_failures_total); reasons that never failed are
// absent.
func (d *Disk) Failures() map[string]uint64 { return d.faults.failures() }

// Keys implements Store.
func (d *Disk) Keys() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	keys := make([]string, 0, len(d.items))
	for k := range d.items {
		keys = append(keys, k)
	}
	return keys
}

// Close implements Store. The entry files stay for the next OpenDisk;
// later calls miss (Get) or fail with ErrClosed (Put).
func (d *Disk) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	return nil
}
