package sim_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// faultyTicker is the ticker of net_test.go with every kind of fault and
// a FIFO link of random latency (so FIFO horizons lie ahead of now).
func faultyTicker() *sim.World {
	m := &ticker{
		link: sim.Link{Min: sim.Millisecond, Max: 4 * sim.Millisecond, Res: sim.Millisecond, FIFO: true},
		faults: []fault{{2 * sim.Millisecond, "partition"}, {3 * sim.Millisecond, "heal"},
			{5 * sim.Millisecond, "crash"}, {7 * sim.Millisecond, "restart"}},
	}
	return sim.NewWorld(m, 1, sim.NewRandomChooser(1), sim.Options{})
}

// lockstep is a script of two threads sharing two mutexes and a
// condition variable, untimed, so that every step is a choice.
func lockstep() *sim.World { return lockstepOf(sim.MutexFIFO) }

func lockstepOf(kind sim.MutexKind) *sim.World {
	s := &script{mutexes: []string{"a", "b"}, conds: []string{"c"}, kind: kind, threads: [][]sim.Action{
		{sim.Lock(0, ""), sim.Wait(0, ""), sim.Lock(1, ""), sim.Unlock(1, ""), sim.Unlock(0, "")},
		{sim.Lock(1, ""), sim.Unlock(1, ""), sim.Lock(0, ""), sim.Broadcast(0, ""), sim.Unlock(0, "")},
		{sim.Lock(0, ""), sim.Signal(0, ""), sim.Unlock(0, "")},
	}}
	return sim.NewWorld(s, 1, sim.NewRandomChooser(1), sim.Options{})
}

// checkCodecOnRun encodes and decodes every state of runs of build's
// world under several seeds, and requires the decoded copy to hash like
// the original, encode to the same bytes, and then continue exactly as
// the original does under the same choices. It returns how many states
// it checked.
func checkCodecOnRun(t *testing.T, build func() *sim.World, extra ...any) int {
	t.Helper()
	codec, err := sim.NewCodec(build(), extra...)
	if err != nil {
		t.Fatal(err)
	}
	states := 0
	var recycled *sim.World
	for seed := uint64(1); seed <= 20; seed++ {
		w := build()
		w.SetChooser(sim.NewRandomChooser(seed))
		for {
			enc, err := codec.Append(nil, w)
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, w.Steps(), err)
			}
			d, err := codec.Decode(enc)
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, w.Steps(), err)
			}
			if again, _ := codec.Append(nil, d); !bytes.Equal(again, enc) {
				t.Fatalf("seed %d step %d: decoded and encoded again, %x is not %x", seed, w.Steps(), again, enc)
			}
			// Into the memory of the last state decoded, stepped since.
			if recycled, err = codec.DecodeInto(recycled, enc); err != nil || recycled.Hash() != w.Hash() {
				t.Fatalf("seed %d step %d: decoded into a used world: %v", seed, w.Steps(), err)
			}
			if again, _ := codec.Append(nil, recycled); !bytes.Equal(again, enc) {
				t.Fatalf("seed %d step %d: decoded into a used world and encoded again, %x is not %x", seed, w.Steps(), again, enc)
			}
			recycled.SetChooser(sim.NewRandomChooser(seed))
			recycled.Step()
			a := w.Clone()
			a.SetChooser(sim.NewRandomChooser(seed * 7))
			d.SetChooser(sim.NewRandomChooser(seed * 7))
			before := len(a.Schedule())
			for {
				if a.Hash() != d.Hash() || a.Steps() != d.Steps() || a.Now() != d.Now() || a.Stop() != d.Stop() ||
					!slices.Equal(a.Schedule()[before:], d.Schedule()) || len(a.Violations()) != len(d.Violations()) {
					t.Fatalf("seed %d: the copy decoded at step %d differs from the original at step %d", seed, w.Steps(), a.Steps())
				}
				ranA, ranD := a.Step(), d.Step()
				if ranA != ranD {
					t.Fatalf("seed %d: the copy decoded at step %d stepped %v, the original %v", seed, w.Steps(), ranD, ranA)
				}
				if !ranA {
					break
				}
			}
			states++
			if !w.Step() {
				break
			}
		}
	}
	return states
}

func TestCodecContinuesMessagesTimersAndFaults(t *testing.T) {
	if n := checkCodecOnRun(t, faultyTicker, num(0)); n < 100 {
		t.Fatalf("only %d states checked", n)
	}
}

func TestCodecContinuesLocksAndConditionVariables(t *testing.T) {
	if n := checkCodecOnRun(t, lockstep); n < 100 {
		t.Fatalf("only %d states checked", n)
	}
}

// Go mutexes: woken waiters and relocking threads pending in the queue.
func TestCodecContinuesGoMutexes(t *testing.T) {
	if n := checkCodecOnRun(t, func() *sim.World { return lockstepOf(sim.MutexGo) }); n < 100 {
		t.Fatalf("only %d states checked", n)
	}
	// The runs checked have both kinds of try pending, and a try bound
	// to fail (its mutex taken since the wake-up).
	var woken, relock, losing bool
	for seed := uint64(1); seed <= 20; seed++ {
		w := lockstepOf(sim.MutexGo)
		w.SetChooser(sim.NewRandomChooser(seed))
		for w.Step() {
			for _, e := range w.Ready() {
				if e.Kind == sim.EvAcquire {
					woken, relock = woken || !e.Relock, relock || e.Relock
					losing = losing || w.Mutex(e.Mutex).Holder != sim.None
				}
			}
		}
	}
	if !woken || !relock || !losing {
		t.Fatalf("pending in the runs: a woken waiter %v, a relock %v, a try bound to fail %v; want all", woken, relock, losing)
	}
}

func TestCodecRefusesHalfAStateCodec(t *testing.T) {
	caps := sim.Capabilities[*counter]{DecodeState: func(*counter, []byte) error { return nil }}.Erase()
	w := sim.NewWorld(&counter{}, 1, sim.FirstChooser{}, sim.Options{Capabilities: caps})
	if _, err := sim.NewCodec(w); !errors.Is(err, sim.ErrCodec) || !strings.Contains(err.Error(), "AppendState and DecodeState go together") {
		t.Fatalf("a codec with DecodeState alone: %v", err)
	}
}

// An unlisted payload type is refused by name when a state holds one.
func TestCodecRefusesAnUnlistedPayloadType(t *testing.T) {
	w := faultyTicker()
	codec, err := sim.NewCodec(w)
	if err != nil {
		t.Fatal(err)
	}
	for w.Step() && !slices.ContainsFunc(w.Pending(), func(e sim.Event) bool { return e.Kind == sim.EvDeliver }) {
	}
	_, err = codec.Append(nil, w)
	if !errors.Is(err, sim.ErrCodec) || err == nil || !strings.Contains(err.Error(), "sim_test.num is not a listed payload type") {
		t.Fatalf("encoding a pending num message: %v, want it refused by type", err)
	}
}

// holder is a model whose state is one field of type T.
type holder[T any] struct {
	pingPong
	V T
}

func (h *holder[T]) Clone() sim.Model { c := *h; return &c }

type cyclic struct{ next *cyclic }

func TestCodecRefusesWhatReflectionCannotCarry(t *testing.T) {
	for name, m := range map[string]sim.Model{
		"field V: type func() is a func":   &holder[func()]{},
		"field V: type chan int is a chan": &holder[chan int]{},
		"contains itself":                  &holder[cyclic]{},
		"field V: type complex128":         &holder[complex128]{},
	} {
		_, err := sim.NewCodec(sim.NewWorld(m, 1, sim.FirstChooser{}, sim.Options{}))
		if !errors.Is(err, sim.ErrCodec) || !strings.Contains(err.Error(), name) {
			t.Errorf("codec of %T: %v, want an error saying %q", m, err, name)
		}
	}
}

// tally keeps counts in a map and writes its own state (StateCodec).
type tally struct {
	pingPong
	counts map[string]int
}

func (m *tally) Clone() sim.Model {
	c := *m
	c.counts = make(map[string]int, len(m.counts))
	for k, v := range m.counts {
		c.counts[k] = v
	}
	return &c
}

func TestCodecWritesMapsInKeyOrder(t *testing.T) {
	a, b := &tally{counts: map[string]int{}}, &tally{counts: map[string]int{}}
	keys := []string{"x", "yy", "z", "ab", "q", "r", "s", "t", "u", "v"}
	for i, k := range keys {
		a.counts[k] = i
		b.counts[keys[len(keys)-1-i]] = len(keys) - 1 - i
	}
	wa := sim.NewWorld(a, 1, sim.FirstChooser{}, sim.Options{})
	wb := sim.NewWorld(b, 1, sim.FirstChooser{}, sim.Options{})
	codec, err := sim.NewCodec(sim.NewWorld(&tally{}, 1, sim.FirstChooser{}, sim.Options{}), ball{})
	if err != nil {
		t.Fatal(err)
	}
	ea, errA := codec.Append(nil, wa)
	eb, errB := codec.Append(nil, wb)
	if errA != nil || errB != nil || !bytes.Equal(ea, eb) {
		t.Fatalf("equal maps built in different orders encode to %x and %x (%v, %v)", ea, eb, errA, errB)
	}
	d, err := codec.Decode(ea)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Model().(*tally).counts; len(got) != len(keys) || got["ab"] != 3 || got["v"] != 9 {
		t.Fatalf("decoded map %v", got)
	}
}

// counter writes its own state: one byte, its hits.
type counter struct{ pingPong }

func (m *counter) Clone() sim.Model { c := *m; return &c }

var counterCaps = sim.Capabilities[*counter]{
	AppendState: func(m *counter, buf []byte) ([]byte, error) { return append(buf, 'C', byte(m.hits)), nil },
	DecodeState: func(m *counter, b []byte) error {
		if len(b) != 2 || b[0] != 'C' {
			return errors.New("not a counter")
		}
		m.hits = int(b[1])
		return nil
	},
}.Erase()

func TestCodecUsesTheModelsOwnStateCodec(t *testing.T) {
	build := func() *sim.World {
		m := &counter{pingPong{limit: 5, link: sim.Link{Min: sim.Millisecond, Max: sim.Millisecond}}}
		return sim.NewWorld(m, 1, sim.FirstChooser{}, sim.Options{Capabilities: counterCaps})
	}
	checkCodecOnRun(t, build, ball{})
	codec, _ := sim.NewCodec(build(), ball{})
	w := build()
	w.Step()
	w.Step()
	enc, err := codec.Append(nil, w)
	if err != nil || !bytes.HasSuffix(enc, []byte{'C', 2}) {
		t.Fatalf("encoding %x (%v) does not end with the model's own bytes C,2", enc, err)
	}
	enc[len(enc)-2] = 'X'
	if _, err := codec.Decode(enc); err == nil || !strings.Contains(err.Error(), "the model's DecodeState: not a counter") {
		t.Fatalf("decoding bytes the model refuses: %v", err)
	}
}

func TestCodecRefusesAWorldThatFailed(t *testing.T) {
	w := lockstep()
	codec, _ := sim.NewCodec(w)
	w.Failf("broken")
	if _, err := codec.Append(nil, w); !errors.Is(err, sim.ErrCodec) {
		t.Fatalf("encoding a failed world: %v", err)
	}
}

// FuzzDecodeState feeds the decoder mutations of real encodings: it must
// return an error or a world that encodes again and decodes to the same
// state, and never panic.
func FuzzDecodeState(f *testing.F) {
	codec, err := sim.NewCodec(faultyTicker(), num(0))
	if err != nil {
		f.Fatal(err)
	}
	w := faultyTicker()
	for w.Step() {
		enc, err := codec.Append(nil, w)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	fuzzDecoder(f, codec, true)
}

func FuzzDecodeGoMutexState(f *testing.F) {
	codec, err := sim.NewCodec(lockstepOf(sim.MutexGo))
	if err != nil {
		f.Fatal(err)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		w := lockstepOf(sim.MutexGo)
		w.SetChooser(sim.NewRandomChooser(seed))
		for w.Step() {
			enc, err := codec.Append(nil, w)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(enc)
		}
	}
	fuzzDecoder(f, codec, true)
}

// fuzzDecoder fuzzes codec's decoder: any input gives an error wrapping
// ErrCodec or a world that encodes again and decodes again (to the same
// hash, when sameHash).
func fuzzDecoder(f *testing.F, codec *sim.Codec, sameHash bool) {
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := codec.Decode(b)
		if err != nil {
			if !errors.Is(err, sim.ErrCodec) {
				t.Fatalf("error %v does not wrap ErrCodec", err)
			}
			return
		}
		enc, err := codec.Append(nil, d)
		if err != nil {
			t.Fatalf("a decoded state does not encode: %v", err)
		}
		d2, err := codec.Decode(enc)
		if err != nil {
			t.Fatalf("re-encoded state does not decode: %v", err)
		}
		if sameHash && d2.Hash() != d.Hash() {
			t.Fatal("re-encoded state decodes to another state")
		}
	})
}

// dispatch keeps a table of funcs filled in Init and shared by its copies,
// as sim.Actors does.
type dispatch struct {
	pingPong
	table []func() int
}

func (m *dispatch) Init(w *sim.World) {
	m.pingPong.Init(w)
	m.table = []func() int{func() int { return 1 }}
}
func (m *dispatch) Clone() sim.Model { c := *m; return &c }

func TestCodecCarriesFuncsOnlyAsTheTemplates(t *testing.T) {
	template := sim.NewWorld(&dispatch{}, 1, sim.FirstChooser{}, sim.Options{})
	codec, err := sim.NewCodec(template)
	if err != nil {
		t.Fatal(err)
	}
	w := template.Clone()
	w.Step()
	enc, err := codec.Append(nil, w)
	if err != nil {
		t.Fatal(err)
	}
	d, err := codec.Decode(enc)
	if err != nil || d.Model().(*dispatch).table[0]() != 1 || d.Hash() != w.Hash() {
		t.Fatalf("a copy of the template decodes to %v (%v)", d, err)
	}
	other := sim.NewWorld(&dispatch{}, 1, sim.FirstChooser{}, sim.Options{})
	if _, err := codec.Append(nil, other); err == nil || !strings.Contains(err.Error(), "table: [0]: a func() int that is not the template's") {
		t.Fatalf("encoding a world whose func table is its own: %v, want it refused by field", err)
	}
}

// mixed holds one field of every kind the reflective codec carries.
type mixed struct {
	pingPong
	Counts map[string]int
	Next   *mixedInner
	Last   any
	Bytes  [2]uint8
	Names  []string
	Rate   float64
	On     bool
	small  int8
}

type mixedInner struct {
	Depth uint16
	Tags  []int32
}

func (m *mixed) Clone() sim.Model { c := *m; return &c }

func mixedStates(tb testing.TB) (*sim.Codec, [][]byte) {
	template := sim.NewWorld(&mixed{}, 1, sim.FirstChooser{}, sim.Options{})
	codec, err := sim.NewCodec(template, ball{})
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for i := range 4 {
		w := template.Clone()
		m := w.Model().(*mixed)
		m.Counts = map[string]int{"a": i, "bb": -i}
		m.Next = &mixedInner{Depth: uint16(i), Tags: []int32{int32(i), 7}}
		m.Last = ball{N: i}
		m.Bytes, m.Names, m.Rate, m.On, m.small = [2]uint8{1, uint8(i)}, []string{"x", "yz"}, 0.5*float64(i), i%2 == 0, int8(-i)
		enc, err := codec.Append(nil, w)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, enc)
	}
	return codec, out
}

func TestCodecCarriesEveryKindOfField(t *testing.T) {
	codec, encs := mixedStates(t)
	d, err := codec.Decode(encs[3])
	if err != nil {
		t.Fatal(err)
	}
	m := d.Model().(*mixed)
	if m.Counts["bb"] != -3 || m.Next.Depth != 3 || m.Next.Tags[1] != 7 || m.Last != (ball{N: 3}) || m.Bytes[1] != 3 ||
		m.Names[1] != "yz" || m.Rate != 1.5 || m.On || m.small != -3 {
		t.Fatalf("decoded %+v (next %+v)", m, m.Next)
	}
}

// FuzzDecodeModelState is FuzzDecodeState for the reflective codec's
// maps, pointers, interfaces, arrays, strings, floats and small ints.
func FuzzDecodeModelState(f *testing.F) {
	codec, encs := mixedStates(f)
	for _, e := range encs {
		f.Add(e)
	}
	fuzzDecoder(f, codec, false)
}
