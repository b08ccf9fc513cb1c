package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/racetrack-sim/racetrack/core/scenario"
)

// ErrNotStored is returned for an id the store does not hold.
var ErrNotStored = errors.New("api: not in the store")

var (
	bucketRuns     = []byte("runs")
	bucketSearches = []byte("searches")
)

// Store keeps what must survive a restart: the normalised spec of every
// run handed out (its id is the spec's hash, so the spec is all that is
// needed to recompute it) and every search job's request and result.
// Each write is one bbolt transaction, fsynced before it returns, so a
// record that was acknowledged survives a kill -9.
type Store struct {
	db *bolt.DB
}

// storeLockWait is how long OpenStore waits for another process to
// release the file.
var storeLockWait = 2 * time.Second

// ErrStoreLocked is returned by OpenStore when another process holds the
// file: two servers must not share one store.
var ErrStoreLocked = errors.New("api: the store file is locked by another process")

// OpenStore opens (creating) the store file at path.
func OpenStore(path string) (*Store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: storeLockWait})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w (%s; is another server running with -data %s?)", ErrStoreLocked, path, path)
	}
	if err != nil {
		return nil, fmt.Errorf("api: open store %s: %w", path, storeFault(err))
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketRuns, bucketSearches} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("api: init store %s: %w", path, err)
	}
	db.MaxBatchDelay = 2 * time.Millisecond
	return &Store{db: db}, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// PutRun records the normalised spec under its id. Writing a spec that is
// already there is a no-op without a disk write.
func (s *Store) PutRun(spec scenario.RunSpec) error {
	id := []byte(spec.ID())
	if err := s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketRuns).Get(id) != nil {
			return errExists
		}
		return nil
	}); err == errExists {
		return nil
	}
	// Batch commits concurrent writers in one fsynced transaction: a
	// burst of new runs costs one disk flush, and each caller returns only
	// once its record is durable.
	return storeFault(s.db.Batch(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketRuns).Put(id, spec.CanonicalJSON())
	}))
}

var errExists = errors.New("exists")

// Run returns the spec stored under id.
func (s *Store) Run(id string) (scenario.RunSpec, error) {
	var spec scenario.RunSpec
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketRuns).Get([]byte(id))
		if b == nil {
			return ErrNotStored
		}
		return json.Unmarshal(b, &spec)
	})
	return spec, err
}

// PutSearch writes a search record (replacing the previous one).
func (s *Store) PutSearch(rec *SearchStatus) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return storeFault(s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSearches).Put([]byte(rec.ID), b)
	}))
}

// DeleteSearch removes a search record (one that was never accepted).
func (s *Store) DeleteSearch(id string) error {
	return storeFault(s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSearches).Delete([]byte(id))
	}))
}

// storeFault turns a write that failed for want of disk into a problem
// that says so: 507 when the disk or quota is full, 503 when the file
// system refuses writes; anything else stays an internal error.
func storeFault(err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	var p *Problem
	switch errno {
	case syscall.ENOSPC, syscall.EDQUOT:
		p = newProblem(http.StatusInsufficientStorage, "insufficient-storage", "Insufficient storage", "",
			"the server could not record this: its store's disk is full (%v); nothing was kept, retry once space is freed", errno)
	case syscall.EROFS, syscall.EIO:
		p = newProblem(http.StatusServiceUnavailable, "store-unavailable", "Store unavailable", "",
			"the server could not record this: its store refuses writes (%v); nothing was kept", errno)
	default:
		return err
	}
	p.retryAfter = 60
	return fmt.Errorf("%w: %w", p, err)
}

// storeCause says why a store write failed, in words a client may see.
func storeCause(err error) string {
	var p *Problem
	if errors.As(err, &p) {
		return p.Detail
	}
	return "an internal error"
}

// Search returns the search record stored under id.
func (s *Store) Search(id string) (*SearchStatus, error) {
	var rec SearchStatus
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSearches).Get([]byte(id))
		if b == nil {
			return ErrNotStored
		}
		return json.Unmarshal(b, &rec)
	})
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// Searches lists every stored search record.
func (s *Store) Searches() ([]*SearchStatus, error) {
	var out []*SearchStatus
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSearches).ForEach(func(_, v []byte) error {
			var rec SearchStatus
			if err := json.Unmarshal(v, &rec); err != nil {
				return err
			}
			out = append(out, &rec)
			return nil
		})
	})
	return out, err
}
