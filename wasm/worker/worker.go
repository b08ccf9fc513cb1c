//go:build js && wasm

package worker

import (
	"encoding/json"
	"sync"
	"syscall/js"
	"time"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/session"
)

// The session is touched by one goroutine at a time: a search or a
// playback hands it over between its slices and frames.
var (
	mu    sync.Mutex
	s     *session.Session
	start = time.Now()
)

// Serve exposes globalThis.racetrack for reg's scenarios and never
// returns: it is the whole of a wasm main.
func Serve(reg *scenario.Registry) {
	mu.Lock()
	s = session.New(session.Config{Registry: reg})
	mu.Unlock()
	api := js.Global().Get("Object").New()
	api.Set("handle", js.FuncOf(handle))
	js.Global().Set("racetrack", api)
	select {}
}

func handle(_ js.Value, args []js.Value) any {
	if len(args) != 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeFunction {
		return js.Global().Get("Error").New("racetrack.handle(requestJSON, post): a string and a function")
	}
	text, post := args[0].String(), args[1]
	go serve([]byte(text), pipe{post})
	return nil
}

func serve(text []byte, p pipe) {
	req, err := session.DecodeRequest(text)
	if err != nil {
		p.Send(session.Reply(req.ID, nil, err))
		return
	}
	mu.Lock()
	defer mu.Unlock()
	s.Serve(req, p) // a panic fails this request alone (session.Serve)
}

// pipe posts messages back to the worker's script.
type pipe struct{ post js.Value }

func (p pipe) Send(m session.Message) bool {
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(session.Reply(m.ID, nil, err))
	}
	p.post.Invoke(string(b))
	return true
}

func (pipe) Now() time.Duration { return time.Since(start) }

// Wait releases the session and sleeps, so the worker's event loop
// delivers other requests.
func (pipe) Wait(d time.Duration) bool {
	mu.Unlock()
	time.Sleep(max(d, time.Millisecond))
	mu.Lock()
	return true
}
