package api

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/core/session"
)

// FuzzSessionSocket writes arbitrary messages on one session socket: each
// is answered (on its id, or null) with a final result or an error that
// names the problem, never a 5xx-like internal error, and the socket stays
// open for the next.
func FuzzSessionSocket(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"method":"open","args":{"spec":{"scenario":"dining-philosophers","preset":"lock-level"}}}`,
		`{"id":2,"method":"search","args":{"scenario":"dining-philosophers","preset":"lock-level","strategy":"dfs"}}`,
		`{"id":3,"method":"play","args":{"run":"r0"}}`, `{"id":"x","method":"cancel","args":{"id":"2"}}`,
		`{"id":4}`, `{`, `null`, `{"id":5,"method":"layout","args":{"run":"r1","to":-1}}`,
	} {
		f.Add(s)
	}
	ts := fuzzServer(f)
	ts.http.Config.Handler = ts.Handler()
	ts.http.Start()
	ts.URL = ts.http.URL
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	f.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, wsURL(ts, "/api/v1/session"), nil)
	if err != nil {
		f.Fatal(err)
	}
	c.SetReadLimit(-1)
	f.Cleanup(func() { c.CloseNow() })
	f.Fuzz(func(t *testing.T, msg string) {
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatalf("write: %v", err)
		}
		req, rerr := session.DecodeRequest([]byte(msg))
		want := string(req.ID)
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("%q: the socket closed: %v", msg, err)
			}
			var r reply
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("%q: reply %q: %v", msg, b, err)
			}
			if string(r.ID) != want || r.Frame != nil || r.Progress != nil {
				continue
			}
			if rerr != nil && r.Error == nil {
				t.Fatalf("%q: the decoder refused it (%v) but the socket answered %s", msg, rerr, b)
			}
			if r.Error != nil && (r.Error.Code == "" || r.Error.Message == "" || r.Error.Code == session.CodeInternal) {
				t.Fatalf("%q: error %+v", msg, r.Error)
			}
			return
		}
	})
}
