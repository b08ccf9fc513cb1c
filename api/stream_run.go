package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// Stream speeds, in steps per second.
const (
	defaultSpeed = 20.0
	maxSpeed     = 100_000.0
)

// StreamCommand is one client message on a run stream:
//
//	{"op":"play"} {"op":"pause"} {"op":"step","n":-1} {"op":"seek","step":42} {"op":"speed","value":50}
type StreamCommand struct {
	Op    string   `json:"op"`
	N     *int     `json:"n,omitempty"`
	Step  *int     `json:"step,omitempty"`
	Value *float64 `json:"value,omitempty"`
}

// DecodeStreamCommand parses and checks a command; errors name the field.
func DecodeStreamCommand(data []byte) (StreamCommand, error) {
	var c StreamCommand
	if err := decodeStrict(data, &c); err != nil {
		return c, err
	}
	switch c.Op {
	case "play", "pause":
	case "step":
		if c.N != nil && (*c.N < -1_000_000 || *c.N > 1_000_000) {
			return c, invalid("n", "n is %d, outside [-1000000, 1000000]", *c.N)
		}
	case "seek":
		if c.Step == nil {
			return c, badRequest("step", "seek needs a step")
		}
	case "speed":
		if c.Value == nil || !(*c.Value > 0 && *c.Value <= maxSpeed) {
			return c, invalid("value", "speed needs a value in (0, %v] steps per second", maxSpeed)
		}
	case "":
		return c, badRequest("op", "op is required: play, pause, step, seek or speed")
	default:
		return c, invalid("op", "unknown op %q: play, pause, step, seek or speed", truncate(c.Op, 20))
	}
	return c, nil
}

// streamError is sent on a stream for a command it rejects; the stream
// goes on.
type streamError struct {
	Type   string `json:"type"` // "error"
	Status int    `json:"status"`
	Field  string `json:"field,omitempty"`
	Detail string `json:"detail"`
}

// streamHello opens a run stream.
type streamHello struct {
	Type   string           `json:"type"` // "hello"
	Run    scenario.Summary `json:"run"`
	Length int              `json:"length"`
}

// player is the state of one run stream: the cursor, the view the client
// holds, and the play clock.
type player struct {
	rec     *recording
	world   *cursor
	cur     int
	fields  *fieldState
	playing bool
	speed   float64
	carry   float64 // fractional steps owed by the play clock
	started bool
}

func (s *Server) runStream(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.runFromPath(w, r)
	if !ok {
		return
	}
	n := rec.tl.Len()
	start, err := queryInt(r, "step", 0, 0, max(n-1, 0))
	if err != nil {
		writeError(w, r, err)
		return
	}
	speed := defaultSpeed
	if v, err := queryInt(r, "speed", 0, 1, int(maxSpeed)); err != nil {
		writeError(w, r, err)
		return
	} else if v > 0 {
		speed = float64(v)
	}
	c, ctx, cancel, done, ok := s.openStream(w, r, "run")
	if !ok {
		return
	}
	defer done()
	out := newOutbox(s.cfg.StreamQueue)
	cmds := make(chan []byte)
	writerDone := make(chan struct{})
	var writeErr error
	go func() {
		defer close(writerDone)
		if writeErr = s.writeLoop(ctx, c, out); writeErr != nil {
			cancel(writeErr)
		}
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.pingLoop(ctx, c, cancel)
	}()
	go func() {
		defer wg.Done()
		readCommands(ctx, c, cmds, cancel)
	}()

	p := &player{rec: rec, world: newCursor(rec.tl), cur: start, fields: &fieldState{}, speed: speed}
	cancel(s.play(ctx, p, out, cmds))
	<-writerDone
	s.closeStream(c, "run", streamCause(ctx, writeErr))
	_ = c.CloseNow()
	wg.Wait()
}

// readCommands forwards client messages until the connection ends. Its
// reads are not bound to ctx (a cancelled read would drop the connection
// before the close handshake); closing the connection ends them.
func readCommands(ctx context.Context, c *websocket.Conn, cmds chan<- []byte, cancel context.CancelCauseFunc) {
	for {
		typ, b, err := c.Read(context.Background())
		if err != nil {
			if ctx.Err() == nil {
				cancel(errors.Join(errClientClosed, err))
			}
			return
		}
		if typ != websocket.MessageText {
			b = nil
		}
		select {
		case cmds <- b:
		case <-ctx.Done():
			return
		}
	}
}

// play is the producer of a run stream: it answers commands and, while
// playing, advances the cursor on the frame clock. It never waits for
// the client: frames go to the outbox, and a full outbox ends the stream.
func (s *Server) play(ctx context.Context, p *player, out *outbox, cmds <-chan []byte) error {
	if !out.push(streamHello{Type: "hello", Run: p.rec.summary, Length: p.rec.tl.Len()}) {
		return errSlowClient
	}
	if err := s.emit(p, out, p.cur); err != nil {
		return err
	}
	// The frame clock runs only while playing, and no faster than one
	// frame per step: a paused stream costs nothing.
	tick := time.NewTicker(time.Hour)
	tick.Stop()
	defer tick.Stop()
	clock := func() {
		if p.playing {
			tick.Reset(max(s.cfg.FrameInterval, time.Duration(float64(time.Second)/p.speed)))
		} else {
			tick.Stop()
		}
	}
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case b := <-cmds:
			target, msg := p.apply(b)
			if msg != nil {
				if !out.push(msg) {
					return errSlowClient
				}
				continue
			}
			last = time.Now()
			if err := s.emit(p, out, target); err != nil {
				return err
			}
			clock()
		case now := <-tick.C:
			p.carry += now.Sub(last).Seconds() * p.speed
			last = now
			adv := int(p.carry)
			if adv == 0 {
				continue
			}
			p.carry -= float64(adv)
			if err := s.emit(p, out, p.cur+adv); err != nil {
				return err
			}
			if !p.playing {
				clock()
			}
		}
	}
}

// apply carries out a command and returns the step to show, or a message
// (an error) to send instead.
func (p *player) apply(b []byte) (int, any) {
	cmd, err := DecodeStreamCommand(b)
	if err != nil {
		var pr *Problem
		if !errors.As(err, &pr) {
			pr = badRequest("body", "unreadable command")
		}
		return 0, streamError{Type: "error", Status: pr.Status, Field: pr.Field, Detail: pr.Detail}
	}
	last := max(p.rec.tl.Len()-1, 0)
	switch cmd.Op {
	case "play":
		p.playing, p.carry = true, 0
		if p.cur >= last {
			return 0, nil // from the end, play starts over
		}
	case "pause":
		p.playing = false
	case "step":
		p.playing = false
		d := 1
		if cmd.N != nil {
			d = *cmd.N
		}
		return p.cur + d, nil
	case "seek":
		if *cmd.Step < 0 || *cmd.Step > last {
			return 0, streamError{Type: "error", Status: http.StatusUnprocessableEntity, Field: "step",
				Detail: "seek step is outside [0, " + strconv.Itoa(last) + "]"}
		}
		return *cmd.Step, nil
	case "speed":
		p.speed = *cmd.Value
	}
	return p.cur, nil
}

// emit moves the cursor to target (clamped to the run) and queues the
// frame for it.
func (s *Server) emit(p *player, out *outbox, target int) error {
	n := p.rec.tl.Len()
	if n == 0 {
		if !out.push(&Frame{Type: "frame", End: true, Speed: p.speed, Changed: []ChangedField{}, Edges: []Edge{}, Made: time.Now().UnixNano()}) {
			return errSlowClient
		}
		return nil
	}
	target = min(max(target, 0), n-1)
	f, err := p.frame(target)
	if err != nil {
		return err
	}
	if f.End {
		p.playing = false
		f.Playing = false
	}
	if !out.push(f) {
		return errSlowClient
	}
	return nil
}

// frame builds the frame for moving the cursor to target.
func (p *player) frame(target int) (*Frame, error) {
	tl := p.rec.tl
	if err := p.world.moveTo(target); err != nil {
		return nil, err
	}
	f := &Frame{Type: "frame", Step: target, Time: tl.Trace().Step(target).Time.Millis(), Playing: p.playing, Speed: p.speed,
		End: target == tl.Len()-1, Full: !p.started, Changed: []ChangedField{}, Edges: []Edge{}, Made: time.Now().UnixNano()}
	f.Changed = p.fields.update(p.world.view(), !p.started)
	lo, hi := target, target
	if p.started && target > p.cur {
		lo = p.cur + 1
	} else if !p.started {
		lo = 0
	}
	if hi-lo+1 > maxFrameEdges {
		lo = hi - maxFrameEdges + 1
	}
	tr := tl.Trace()
	for i := lo; i <= hi; i++ {
		st := tr.Step(i)
		if st.Parent < 0 {
			continue
		}
		e := Edge{From: int(st.Parent), To: i, Kind: "causal", Label: tr.Label(st.Label)}
		switch st.Kind {
		case sim.StepReceive:
			e.Kind, e.Msg = "message", int(st.Msg)
		case sim.StepLock:
			e.Kind = "lock"
		}
		f.Edges = append(f.Edges, e)
	}
	if p.started && target > p.cur {
		for _, v := range p.rec.summary.Violations {
			if v.Step > p.cur && v.Step <= target {
				f.Violations = append(f.Violations, v)
			}
		}
	}
	p.cur, p.started = target, true
	return f, nil
}
