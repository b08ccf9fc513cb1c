package api

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// TestStoreForkTreeBound: a stored tree larger than session.MaxForkNodes
// is refused naming the run, after reading a bounded number of records;
// one within the bound is shown whole.
func TestStoreForkTreeBound(t *testing.T) {
	st, err := OpenStore(filepath.Join(t.TempDir(), "racetrack.db"))
	require.NoError(t, err)
	defer st.Close()
	root := scenario.RunSpec{Scenario: "dining-philosophers", Seed: 1}
	rootID := root.ID()
	// Children written in one transaction (PutFork commits each).
	put := func(from, to int) {
		require.NoError(t, st.db.Update(func(tx *bolt.Tx) error {
			forks, kids, err := forkBuckets(tx)
			if err != nil {
				return err
			}
			if err := forks.Put([]byte(rootID), []byte(`{"violations":1}`)); err != nil {
				return err
			}
			for i := from; i < to; i++ {
				id := fmt.Sprintf("r%020x", i+1)
				spec, _ := json.Marshal(scenario.RunSpec{Scenario: "dining-philosophers", Seed: uint64(i + 2)})
				rec, _ := json.Marshal(forkRecord{Parent: &session.ForkEdge{Parent: rootID, Step: i}})
				if err := tx.Bucket(bucketRuns).Put([]byte(id), spec); err != nil {
					return err
				}
				if err := forks.Put([]byte(id), rec); err != nil {
					return err
				}
				if err := kids.Put(binary.BigEndian.AppendUint64([]byte(rootID), uint64(i)), []byte(id)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	put(0, session.MaxForkNodes-1)
	tree, err := st.ForkTree(root, 1)
	require.NoError(t, err)
	assert.Len(t, tree.Children, session.MaxForkNodes-1)
	assert.Equal(t, 1, tree.Violations)
	assert.Equal(t, session.MaxForkNodes-2, tree.Children[session.MaxForkNodes-2].Fork.Step, "children in the order they were made")

	put(session.MaxForkNodes-1, session.MaxForkNodes+5)
	_, err = st.ForkTree(root, 1)
	var se *session.Error
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, "run", se.Field)
	assert.Contains(t, se.Message, fmt.Sprintf("more than %d runs", session.MaxForkNodes))
}
