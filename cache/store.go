package cache

import (
	"errors"
	"fmt"
	"time"

	"github.com/bloomcast/bloomcast/internal/storefail"
)

// Errors of the stores. Functions wrap them with details; test with
// errors.Is.
var (
	ErrConfig   = errors.New("cache: invalid configuration")
	ErrTooLarge = errors.New("cache: entry larger than the store's budget")
	ErrCorrupt  = storefail.ErrCorrupt
	ErrClosed   = errors.New("cache: store closed")
)

// errNilEntry is what a Store's Put returns for a nil Entry.
var errNilEntry = fmt.Errorf("%w: Put of a nil Entry", ErrConfig)

// MinInterval is the shortest duration any of this package's configurations
// accepts (a digest's MaxAge, a directory's PollInterval and Expiry, a
// node's timeouts): shorter ones cannot be meant, and some would reach
// time.NewTicker as zero, which panics in a goroutine and kills the node.
const MinInterval = time.Millisecond

// Store holds entries by key ([Key], which is the entry's URL) under a
// byte budget, evicting the least recently used to stay within it. Both
// implementations, [Memory] and [Disk], are safe for concurrent use.
//
// The zero value, nil, is no store; Config.Store is required.
type Store interface {
	// Get returns the entry stored under key and marks it recently used.
	Get(key string) (*Entry, bool)
	// Put stores e under e.URL, replacing any entry of that key and
	// evicting least recently used entries to keep within the budget. An
	// entry that cannot be stored (larger than the budget, a write error)
	// is refused with an error, and any older entry of the key is removed
	// all the same, since the new response superseded it.
	Put(e *Entry) error
	// Delete removes the entry of key, reporting whether there was one.
	Delete(key string) bool
	// Len is the number of entries.
	Len() int
	// Bytes is what the entries are charged against the budget: the
	// heap they and the index hold in a [Memory] store, their files'
	// bytes on disk, as du counts them, in a [Disk] store.
	Bytes() int64
	// Keys returns the keys of all entries, in no particular order.
	Keys() []string
	// Close releases the store. Entries of a Disk store stay on disk;
	// nothing is reported to the Observer.
	Close() error
}

// Observer is told of every change to a store's set of keys, so that a
// summary of it (the node's counting filter) stays exact. Stored is called
// when an entry is stored under a key (including entries found on disk
// when a [Disk] store opens), Evicted when that entry leaves the store for
// any reason: eviction, Delete, replacement by a newer entry (Evicted of
// the old, then Stored of the new), a refused Put, or a corrupt file.
// Every Stored of a key is followed by exactly one Evicted of it before the
// next Stored of the same key.
//
// The methods are called synchronously with the store's lock held, in the
// order of the changes; they must be quick and must not call the store.
//
// The zero value, nil, is no observer; a nil Observer in MemoryConfig or
// DiskConfig means none is told.
type Observer interface {
	Stored(key string)
	Evicted(key string)
}

// nopObserver is the Observer of a store configured without one.
type nopObserver struct{}

func (nopObserver) Stored(string)  {}
func (nopObserver) Evicted(string) {}

func observerOrNop(o Observer) Observer {
	if o == nil {
		return nopObserver{}
	}
	return o
}
