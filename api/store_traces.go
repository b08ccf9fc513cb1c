package api

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"

	"github.com/racetrack-sim/racetrack/core/session"
)

// Imported logs are kept like runs: what recomputes them. bucketTraces
// maps a log id to its traceRecord, bucketTraceLogs to the log's bytes
// (apart, so that opening a log by id reads its counts alone).
var (
	bucketTraces    = []byte("traces")
	bucketTraceLogs = []byte("trace-logs")
)

// traceRecord is what the store keeps of an imported log besides its
// bytes: how to import it again, and what the import found.
type traceRecord struct {
	Format     string   `json:"format"`
	Parser     string   `json:"parser,omitempty"`
	Delimiter  string   `json:"delimiter,omitempty"`
	Hosts      int      `json:"hosts"`
	Events     int      `json:"events"`
	Executions int      `json:"executions"`
	Labels     []string `json:"labels,omitempty"`
}

// PutTrace records an imported log under its id, fsynced before it
// returns; a log already there is not written again.
func (s *Store) PutTrace(id string, rec traceRecord, log string) error {
	if err := s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketTraces).Get([]byte(id)) != nil {
			return errExists
		}
		return nil
	}); err == errExists {
		return nil
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return storeFault(s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketTraceLogs).Put([]byte(id), []byte(log)); err != nil {
			return err
		}
		return tx.Bucket(bucketTraces).Put([]byte(id), b)
	}))
}

// Trace returns the record of the log stored under id.
func (s *Store) Trace(id string) (traceRecord, error) {
	var rec traceRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTraces).Get([]byte(id))
		if b == nil {
			return ErrNotStored
		}
		return json.Unmarshal(b, &rec)
	})
	return rec, err
}

// TraceLog returns the log stored under id, as it can be imported again.
func (s *Store) TraceLog(id string) (session.TraceLog, error) {
	rec, err := s.Trace(id)
	if err != nil {
		return session.TraceLog{}, err
	}
	t := session.TraceLog{Format: rec.Format, Parser: rec.Parser, Delimiter: rec.Delimiter}
	err = s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTraceLogs).Get([]byte(id))
		if b == nil {
			return ErrNotStored
		}
		t.Log = string(b)
		return nil
	})
	return t, err
}
