package api

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
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
		for _, b := range [][]byte{bucketRuns, bucketSearches, bucketTraces, bucketTraceLogs} {
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

// Forks made over REST (POST /runs/{id}/forks) are kept as records, so
// GET /runs/{id}/forks shows the tree after a restart: bucketForks maps a
// run id to its forkRecord, bucketForkKids maps a parent id and a
// sequence number (8 bytes, big-endian: creation order) to a child id.
var (
	bucketForks    = []byte("forks")
	bucketForkKids = []byte("fork-children")
)

// forkRecord is what the store keeps of a run in a fork tree.
type forkRecord struct {
	// Parent is the edge from the run it was forked from (nil at a root).
	Parent     *session.ForkEdge `json:"parent,omitempty"`
	Violations int               `json:"violations"`
}

// forkBuckets returns the fork records and the children index, made on
// first use.
func forkBuckets(tx *bolt.Tx) (forks, kids *bolt.Bucket, err error) {
	if forks, err = tx.CreateBucketIfNotExists(bucketForks); err != nil {
		return nil, nil, err
	}
	kids, err = tx.CreateBucketIfNotExists(bucketForkKids)
	return forks, kids, err
}

// PutFork records that child was forked from parent along edge (with
// their violation counts). A run keeps the first parent it was forked
// from: a fork that leads back to a run already in a tree (its own
// ancestor, say) adds no edge, so the records stay a forest.
func (s *Store) PutFork(parent string, parentViolations int, edge session.ForkEdge, child string, childViolations int) error {
	return storeFault(s.db.Update(func(tx *bolt.Tx) error {
		forks, kids, err := forkBuckets(tx)
		if err != nil {
			return err
		}
		if forks.Get([]byte(parent)) == nil {
			b, _ := json.Marshal(forkRecord{Violations: parentViolations})
			if err := forks.Put([]byte(parent), b); err != nil {
				return err
			}
		}
		if forks.Get([]byte(child)) != nil {
			return nil
		}
		edge.Parent = parent
		b, _ := json.Marshal(forkRecord{Parent: &edge, Violations: childViolations})
		if err := forks.Put([]byte(child), b); err != nil {
			return err
		}
		seq, err := kids.NextSequence()
		if err != nil {
			return err
		}
		return kids.Put(binary.BigEndian.AppendUint64([]byte(parent), seq), []byte(child))
	}))
}

// ForkTree returns the fork tree that holds run (core/session's ForkTree
// over the records), read in one transaction. spec and violations
// describe the run itself, which may be one no fork touched yet (the tree
// is then the run alone) or one the store does not hold (opened over the
// session socket).
func (s *Store) ForkTree(run scenario.RunSpec, violations int) (session.ForkNode, error) {
	id := run.ID()
	var tree session.ForkNode
	err := s.db.View(func(tx *bolt.Tx) error {
		runs, forks, kids := tx.Bucket(bucketRuns), tx.Bucket(bucketForks), tx.Bucket(bucketForkKids)
		var readErr error
		// Each run is read once; the children read in all are bounded
		// (a tree within MaxForkNodes reads each run once as a child).
		type known struct {
			info session.ForkInfo
			ok   bool
		}
		seen := map[string]known{}
		kidsLeft := 2*session.MaxForkNodes + 2
		var read func(string) (session.ForkInfo, bool)
		know := func(n string) (session.ForkInfo, bool) {
			if k, ok := seen[n]; ok {
				return k.info, k.ok
			}
			info, ok := read(n)
			seen[n] = known{info, ok}
			return info, ok
		}
		read = func(n string) (session.ForkInfo, bool) {
			var info session.ForkInfo
			var rec forkRecord
			var b []byte
			if forks != nil {
				b = forks.Get([]byte(n))
			}
			switch {
			case b != nil:
				if err := json.Unmarshal(b, &rec); err != nil {
					readErr = fmt.Errorf("read the fork record of %s: %w", n, err)
					return info, false
				}
			case n == id:
				rec.Violations = violations
			default:
				return info, false
			}
			if n == id {
				info.Spec = run
			} else if b := runs.Get([]byte(n)); b == nil {
				return info, false
			} else if err := json.Unmarshal(b, &info.Spec); err != nil {
				readErr = fmt.Errorf("read run %s: %w", n, err)
				return info, false
			}
			info.Violations = rec.Violations
			if p := rec.Parent; p != nil {
				info.Parent = &timeline.Branch{Parent: p.Parent, Step: p.Step, Choice: p.Choice, Option: p.Option, Text: p.Text}
			}
			if kids != nil {
				// At most one more than a tree may hold: ForkTree then
				// refuses the tree.
				c := kids.Cursor()
				for k, v := c.Seek([]byte(n)); k != nil && len(k) == len(n)+8 && string(k[:len(n)]) == n; k, v = c.Next() {
					if len(info.Children) > session.MaxForkNodes {
						break
					}
					if kidsLeft--; kidsLeft < 0 {
						readErr = &session.Error{Code: session.CodeInvalid, Field: "run",
							Message: fmt.Sprintf("the fork tree holding run %s has more than %d runs", id, session.MaxForkNodes)}
						return info, false
					}
					info.Children = append(info.Children, string(v))
				}
			}
			return info, true
		}
		t, err := session.ForkTree(id, know)
		if readErr != nil {
			return readErr
		}
		tree = t
		return err
	})
	return tree, err
}
