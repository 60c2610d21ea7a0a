package cache

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
	Dir      string       // directory of the entry files; created if missing
	MaxBytes int64        // budget of accounted bytes ([Entry.Size]); must be positive
	Observer Observer     // told of every store and removal; nil for none
	Logger   *slog.Logger // where dropped entries are reported; nil for slog.Default()
}

// Disk is a Store that keeps each entry in its own file under a directory,
// so the cache survives a restart. A Put writes a temporary file, syncs it,
// renames it over the entry's file and syncs the directory (where the
// system allows it: not on Windows), so a crash leaves either the old
// entry or the new one, never a mixture, and an entry that Put stored is
// still there after a power loss. The index (key, file, size, and
// the least-recently-used order) lives in memory and is rebuilt when the
// store opens by reading every entry file; the recency order at open is
// the files' modification times.
//
// Each file holds one entry in a checksummed format (CRC-32C). A file that
// is truncated, corrupt, or not an entry file at all is deleted and
// logged, whether it is found at open or at a later Get; the store never
// fails because of one.
//
// The zero Disk is not usable; make one with OpenDisk.
type Disk struct {
	dir string
	log *slog.Logger
	obs Observer

	mu     sync.Mutex
	max    int64
	bytes  int64
	gen    uint64
	lru    *list.List // of *diskItem, most recently used first
	index  map[string]*list.Element
	closed bool
	syncs  uint64 // directory syncs done (for the tests)
}

// diskItem is the index record of one entry file.
type diskItem struct {
	key  string
	size int64  // accounted size (Entry.Size)
	gen  uint64 // distinguishes successive files of one key
}

const (
	entrySuffix = ".bce"
	tempPrefix  = ".tmp-"
)

// OpenDisk opens (or creates) a disk store in cfg.Dir and rebuilds its
// index. Entries beyond the budget, least recently modified first, are
// deleted; every entry kept is reported to the Observer as Stored.
func OpenDisk(cfg DiskConfig) (*Disk, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: Dir is empty", ErrConfig)
	}
	if cfg.MaxBytes <= 0 {
		return nil, fmt.Errorf("%w: MaxBytes %d must be positive", ErrConfig, cfg.MaxBytes)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: disk store: %w", err)
	}
	d := &Disk{
		dir:   cfg.Dir,
		log:   cfg.Logger,
		obs:   observerOrNop(cfg.Observer),
		max:   cfg.MaxBytes,
		lru:   list.New(),
		index: make(map[string]*list.Element),
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	if err := d.load(); err != nil {
		return nil, err
	}
	return d, nil
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
	for _, de := range des {
		name := de.Name()
		path := filepath.Join(d.dir, name)
		switch {
		case strings.HasPrefix(name, tempPrefix):
			_ = os.Remove(path) // an interrupted write; if it stays, the next open tries again
			continue
		case !strings.HasSuffix(name, entrySuffix) || !de.Type().IsRegular():
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if info.Size() > d.max {
			d.drop(path, fmt.Errorf("%w: file of %d bytes exceeds the budget", ErrCorrupt, info.Size()))
			continue
		}
		e, err := readEntry(path)
		if err == nil && fileName(e.URL) != name {
			err = fmt.Errorf("%w: file name does not match URL %q", ErrCorrupt, e.URL)
		}
		if err != nil {
			d.drop(path, err)
			continue
		}
		all = append(all, found{e.URL, e.Size(), info.ModTime()})
	}
	// Most recently modified first; keep what fits.
	sort.Slice(all, func(i, j int) bool { return all[i].mtime.After(all[j].mtime) })
	for _, f := range all {
		if d.bytes+f.size > d.max {
			// Over budget: not indexed either way; a file that cannot
			// be removed is met again, and tried again, at the next open.
			_ = os.Remove(filepath.Join(d.dir, fileName(f.key)))
			continue
		}
		d.gen++
		d.index[f.key] = d.lru.PushBack(&diskItem{key: f.key, size: f.size, gen: d.gen})
		d.bytes += f.size
		d.obs.Stored(f.key)
	}
	return nil
}

// drop deletes a bad entry file and logs why.
func (d *Disk) drop(path string, why error) {
	rmErr := os.Remove(path)
	if errors.Is(rmErr, fs.ErrNotExist) {
		rmErr = nil
	}
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

// Get implements Store. It reads the entry's file; a file found corrupt is
// deleted, logged and reported as Evicted, and Get reports a miss.
func (d *Disk) Get(key string) (*Entry, bool) {
	d.mu.Lock()
	el, ok := d.index[key]
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
	d.mu.Lock()
	defer d.mu.Unlock()
	// Only if the file read is still the indexed one: a concurrent Put or
	// eviction may have replaced or removed it.
	if el, ok := d.index[key]; ok && el.Value.(*diskItem).gen == gen {
		d.remove(el, false)
		d.drop(d.path(key), err)
	}
	return nil, false
}

// Put implements Store.
func (d *Disk) Put(e *Entry) (err error) {
	if e == nil {
		return errNilEntry
	}
	size := e.Size()
	var tmp string
	if size <= d.max {
		tmp, err = d.writeTemp(appendEntry(nil, e))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		if tmp != "" {
			_ = os.Remove(tmp) // a temporary file left behind is removed at the next open
		}
		return ErrClosed
	}
	old, had := d.index[e.URL]
	if had {
		d.remove(old, false) // the file is replaced or removed below
	}
	final := d.path(e.URL)
	switch {
	case size > d.max:
		err = fmt.Errorf("%w: %d bytes, budget %d", ErrTooLarge, size, d.max)
	case err == nil:
		if err = os.Rename(tmp, final); err != nil {
			_ = os.Remove(tmp) // as above; the rename's error is the one to report
			err = fmt.Errorf("cache: disk store: %w", err)
			break
		}
		// The rename is in the directory: without syncing it, a power
		// loss may leave the old entry, or none, after Put returned.
		if err = syncDir(d.dir); err != nil {
			_ = os.Remove(final)
			err = fmt.Errorf("cache: disk store: %w", err)
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
	for d.bytes+size > d.max {
		d.remove(d.lru.Back(), true)
	}
	d.gen++
	d.index[e.URL] = d.lru.PushFront(&diskItem{key: e.URL, size: size, gen: d.gen})
	d.bytes += size
	d.obs.Stored(e.URL)
	return nil
}

// writeTemp writes b to a new temporary file in the store's directory and
// syncs it, returning its path.
func (d *Disk) writeTemp(b []byte) (string, error) {
	f, err := os.CreateTemp(d.dir, tempPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("cache: disk store: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name()) // left behind, it is removed at the next open; the write's error is the one to report
		return "", fmt.Errorf("cache: disk store: %w", err)
	}
	return f.Name(), nil
}

// remove drops an index record, deleting its file if asked, and reports
// the eviction; d.mu is held.
func (d *Disk) remove(el *list.Element, deleteFile bool) {
	it := d.lru.Remove(el).(*diskItem)
	delete(d.index, it.key)
	d.bytes -= it.size
	if deleteFile {
		if err := os.Remove(d.path(it.key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			d.log.Warn("cache: removing disk entry", "url", logURL(it.key), "err", err)
		}
	}
	d.obs.Evicted(it.key)
}

// Delete implements Store.
func (d *Disk) Delete(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	el, ok := d.index[key]
	if ok && !d.closed {
		d.remove(el, true)
	}
	return ok && !d.closed
}

// Len implements Store.
func (d *Disk) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.index)
}

// Bytes implements Store.
func (d *Disk) Bytes() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bytes
}

// Keys implements Store.
func (d *Disk) Keys() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	keys := make([]string, 0, len(d.index))
	for k := range d.index {
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
