package philo

import "testing"

func TestProgramHasEveryStep(t *testing.T) {
	if miss := philosopher.Missing(); len(miss) > 0 || len(philosopher) != pcDone+1 {
		t.Errorf("philosopher: %d steps for %d program counters, missing %v", len(philosopher), pcDone+1, miss)
	}
}
