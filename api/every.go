package api

import (
	"context"
	"time"
)

// every calls tick every interval until ctx ends or tick returns false:
// the server's periodic duties (the memory watchdog, stream pings, the
// idle check of session sockets).
func every(ctx context.Context, interval time.Duration, tick func() bool) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !tick() {
			return
		}
	}
}
