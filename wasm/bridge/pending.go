package bridge

import (
	"errors"

	"github.com/racetrack-sim/racetrack/core/timeline"
)

func charts(tl *timeline.Timeline) (any, error) { return tl.Series(), nil }

func export(tl *timeline.Timeline, format string) (Raw, error) {
	return nil, errors.New("bridge: export is not available yet")
}
