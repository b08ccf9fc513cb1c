package modeltest

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"

	"github.com/racetrack-sim/racetrack/core/scenario"
	"github.com/racetrack-sim/racetrack/core/sim"
)

// CheckCodec runs spec and checks the state codec (sim.Codec) on every
// state of the run: the decoded world hashes like the original and
// encodes to the same bytes again. At k random steps (and the last) it
// also drives the original and its decoded copy by the same choices for
// cloneSteps steps and requires them to stay equal step for step: same
// step taken, choices offered, time, hash, violations and view. A model
// whose codec drops or garbles state, or a payload type it does not
// list (when it lists them), fails it. A model that lists none (one
// written before the codec) is checked with the payload types its run
// sends; TestCatalogListsPayloadTypes holds the catalog's to a list.
func CheckCodec(reg *scenario.Registry, spec scenario.RunSpec, k int) error {
	var seen []any
	ns, w, pw, err := probed(reg, spec, func(pw *sim.World) {
		if pw.Capabilities().PayloadTypes == nil {
			seen = payloadsIn(pw, seen)
		}
	})
	if err != nil {
		return err
	}
	lim := ns.Limits()
	codec, err := sim.NewCodec(w, seen...)
	if err != nil {
		return fail(ns, 0, "%v", err)
	}
	pick := picks(ns, pw.Steps(), k)
	var buf []byte
	for {
		if buf, err = roundTrip(codec, w, buf); err != nil {
			return fail(ns, w.Steps(), "state at step %d: %v", w.Steps(), err)
		}
		if len(pick) > 0 && w.Steps() == pick[0] {
			pick = pick[1:]
			if err := continueAlike(codec, w, lim, buf); err != nil {
				return fail(ns, w.Steps(), "state at step %d: %v", w.Steps(), err)
			}
		}
		if !w.StepWithin(lim) {
			return nil
		}
	}
}

// roundTrip encodes w into buf, decodes it, and checks the copy's hash
// and encoding; it returns the encoding.
func roundTrip(codec *sim.Codec, w *sim.World, buf []byte) ([]byte, error) {
	if w.Err() != nil {
		return buf, nil
	}
	enc, err := codec.Append(buf[:0], w)
	if err != nil {
		return buf, err
	}
	d, err := codec.Decode(enc)
	if err != nil {
		return enc, err
	}
	if d.Hash() != w.Hash() {
		return enc, fmt.Errorf("decoded, it hashes %016x, the original %016x", d.Hash(), w.Hash())
	}
	again, err := codec.Append(nil, d)
	if err != nil {
		return enc, fmt.Errorf("re-encoding the decoded world: %v", err)
	}
	if !bytes.Equal(again, enc) {
		return enc, fmt.Errorf("decoded and encoded again, it is %d bytes unlike the original's %d", len(again), len(enc))
	}
	return enc, nil
}

// continueAlike steps a clone of w and the world enc decodes to by the
// same random choices and compares them after every step.
func continueAlike(codec *sim.Codec, w *sim.World, lim sim.Limits, enc []byte) error {
	if w.Err() != nil {
		return nil
	}
	a := w.Clone()
	d, err := codec.Decode(enc)
	if err != nil {
		return err
	}
	seed := uint64(w.Steps()) + 1
	a.SetChooser(sim.NewRandomChooser(seed))
	d.SetChooser(sim.NewRandomChooser(seed))
	before := len(a.Schedule())
	for j := 0; j < cloneSteps; j++ {
		ranA, ranD := a.StepWithin(lim), d.StepWithin(lim)
		if ranA != ranD {
			return fmt.Errorf("after %d steps the original stepped %v, its decoded copy %v", j, ranA, ranD)
		}
		if msg := decodedDiffer(a, d, before); msg != "" {
			return fmt.Errorf("the original and its decoded copy, driven by the same choices, differ after %d steps: %s", j+1, msg)
		}
		if !ranA {
			return nil
		}
	}
	return nil
}

// decodedDiffer says how a world and a decoded copy of it, stepped alike
// since, differ (the copy's schedule holds only the choices made since,
// the original's from position before).
func decodedDiffer(a, d *sim.World, before int) string {
	switch {
	case a.LastStep() != d.LastStep():
		return fmt.Sprintf("last steps %+v and %+v", a.LastStep(), d.LastStep())
	case !slices.Equal(a.Schedule()[before:], d.Schedule()):
		return fmt.Sprintf("choices %v and %v", a.Schedule()[before:], d.Schedule())
	case a.Stop() != d.Stop():
		return fmt.Sprintf("stop reasons %s and %s", a.Stop(), d.Stop())
	case fmt.Sprint(a.Err()) != fmt.Sprint(d.Err()):
		return fmt.Sprintf("errors %v and %v", a.Err(), d.Err())
	case !reflect.DeepEqual(a.Reached(), d.Reached()):
		return fmt.Sprintf("reached %v and %v", a.Reached(), d.Reached())
	}
	return differ(withSchedule(a, before), d)
}

// withSchedule is a copy of w whose schedule is the choices from
// position from on, to compare with a decoded world's.
func withSchedule(w *sim.World, from int) *sim.World {
	c := w.Clone()
	c.SetSchedule(slices.Clone(w.Schedule()[from:]))
	return c
}

// payloadsIn adds to seen one value of each payload type pending in w
// that seen lacks.
func payloadsIn(w *sim.World, seen []any) []any {
	for _, e := range w.Pending() {
		if e.Payload == nil {
			continue
		}
		t := reflect.TypeOf(e.Payload)
		if !slices.ContainsFunc(seen, func(v any) bool { return reflect.TypeOf(v) == t }) {
			seen = append(seen, e.Payload)
		}
	}
	return seen
}
