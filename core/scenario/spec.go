package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Bounds of every run, whatever the scenario.
const (
	MaxStepsCap    = 5_000_000
	MaxTimeCap     = 3_600_000 // ms: one hour of virtual time
	MaxScheduleLen = 5_000_000
	MaxSeed        = 1<<53 - 1 // the largest integer JavaScript holds exactly
)

// PresetMaxSteps is the largest default step budget a preset may have:
// every shipped preset must run with its defaults on a server whose
// per-run step limit is this value (the server's default), in the browser
// and on the command line alike. core/modeltest checks every preset
// against it; a server configured below it refuses shipped presets.
const PresetMaxSteps = 1_000_000

// RunSpec names one run. With its schedule it determines the run exactly.
type RunSpec struct {
	Scenario string         `json:"scenario"`
	Preset   string         `json:"preset,omitempty"`
	Variant  string         `json:"variant,omitempty"`
	Params   map[string]any `json:"params,omitempty"`
	Seed     uint64         `json:"seed"`
	Schedule []int          `json:"schedule,omitempty"`
	MaxSteps int            `json:"maxSteps,omitempty"`
	// MaxTime is the virtual-time budget in milliseconds.
	MaxTime float64 `json:"maxTime,omitempty"`
}

// FieldError is a rejection of one field of outside input.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// ErrInvalid is wrapped by every validation failure.
var ErrInvalid = errors.New("scenario: invalid run spec")

// Is lets errors.Is(err, ErrInvalid) match field errors.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// DecodeRunSpec parses a RunSpec strictly: unknown fields, wrong types and
// trailing data are errors naming the field.
func DecodeRunSpec(data []byte) (RunSpec, error) {
	var s RunSpec
	if err := DecodeStrict(data, &s); err != nil {
		return RunSpec{}, err
	}
	return s, nil
}

// DecodeStrict decodes one JSON value into v, rejecting unknown fields,
// duplicate keys and trailing data, and turns decoding errors into FieldErrors.
func DecodeStrict(data []byte, v any) error {
	if err := DecodeNested(data, v); err != nil {
		return err
	}
	return duplicateKey(data)
}

// DecodeNested is DecodeStrict without the duplicate-key scan: for a
// value's own UnmarshalJSON inside a body that DecodeStrict decodes (and
// scans whole, once).
func DecodeNested(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return jsonFieldError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fieldErr("body", "unexpected data after the JSON object")
	}
	return nil
}

func jsonFieldError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var fe *FieldError
	switch {
	case errors.As(err, &fe):
		return fe // a value's own decoder named its field (a nested UnmarshalJSON)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "body"
		}
		return fieldErr(field, "must be %s, got a JSON %s", jsonTypeName(te.Type.String()), te.Value)
	case errors.As(err, &se):
		return fieldErr("body", "malformed JSON at byte %d: %v", se.Offset, se)
	case errors.Is(err, io.EOF):
		return fieldErr("body", "empty body; expected a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fieldErr("body", "truncated JSON")
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		if field := strings.Trim(name, `"`); field != "" {
			return fieldErr(field, "unknown field")
		}
		return fieldErr("body", "unknown field %s", name)
	}
	return fieldErr("body", "%s", strings.TrimPrefix(msg, "json: "))
}

func jsonTypeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "uint"):
		return "a non-negative integer"
	case strings.HasPrefix(goType, "int"):
		return "an integer"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map"):
		return "an object"
	}
	return goType
}

// Normalize validates s against the registry and returns it in normal
// form: preset and variant filled in, every parameter present with its
// canonical value, budgets filled in. Errors name the field; every
// rejected field is reported (a FieldErrors when more than one), except
// that nothing is checked past a missing or unknown scenario.
func (r *Registry) Normalize(s RunSpec) (RunSpec, *Scenario, error) {
	if s.Scenario == "" {
		return s, nil, fieldErr("scenario", "is required; one of %s", strings.Join(r.ids(), ", "))
	}
	sc, ok := r.Lookup(s.Scenario)
	if !ok {
		return s, nil, fieldErr("scenario", "unknown scenario %q; one of %s", s.Scenario, strings.Join(r.ids(), ", "))
	}
	var errs Collector
	out := RunSpec{Scenario: sc.ID, Seed: s.Seed}
	preset := sc.DefaultPreset()
	if s.Preset != "" {
		if p, ok := sc.Preset(s.Preset); ok {
			preset = p
		} else {
			errs.Add("preset", "unknown preset %q of %s; one of %s", s.Preset, sc.ID, strings.Join(sc.presetIDs(), ", "))
		}
	}
	out.Preset = preset.ID
	out.Variant = sc.DefaultVariant()
	if s.Variant != "" {
		if sc.HasVariant(s.Variant) {
			out.Variant = s.Variant
		} else {
			errs.Add("variant", "unknown variant %q of %s; one of %s", s.Variant, sc.ID, strings.Join(sc.variantIDs(), ", "))
		}
	}
	before := errs.Len()
	out.Params = sc.normalizeParams(preset, s.Params, &errs)
	if errs.Len() == before {
		// Rules relate parameters, so they apply once every one is valid.
		sc.checkRules(Values(out.Params), &errs)
	}
	if s.Seed > MaxSeed {
		errs.Add("seed", "is %d, above the largest allowed seed %d", s.Seed, uint64(MaxSeed))
	}
	if len(s.Schedule) > MaxScheduleLen {
		errs.Add("schedule", "holds %d choices, more than the %d allowed", len(s.Schedule), MaxScheduleLen)
	} else {
		for i, c := range s.Schedule {
			if c < 0 {
				errs.Add(fmt.Sprintf("schedule[%d]", i), "is %d; a choice is a non-negative option index", c)
			}
		}
	}
	if len(s.Schedule) > 0 {
		out.Schedule = append([]int(nil), s.Schedule...)
	}
	out.MaxSteps = preset.MaxSteps
	if s.MaxSteps != 0 {
		if s.MaxSteps < 1 || s.MaxSteps > MaxStepsCap {
			errs.Add("maxSteps", "is %d, outside the allowed range [1, %d]", s.MaxSteps, MaxStepsCap)
		}
		out.MaxSteps = s.MaxSteps
	}
	out.MaxTime = preset.MaxTime
	if s.MaxTime != 0 {
		if !(s.MaxTime > 0 && s.MaxTime <= MaxTimeCap) {
			errs.Add("maxTime", "is %v ms, outside the allowed range (0, %d] ms", s.MaxTime, MaxTimeCap)
		}
		out.MaxTime = s.MaxTime
	}
	if err := errs.Err(); err != nil {
		return s, nil, err
	}
	return out, sc, nil
}

func (s *Scenario) normalizeParams(preset *Preset, given map[string]any, errs *Collector) Values {
	out := Values{}
	for _, name := range sortedKeys(given) {
		p, ok := s.Param(name)
		if !ok {
			names := make([]string, len(s.Params))
			for i := range s.Params {
				names[i] = s.Params[i].Name
			}
			errs.Add("params."+name, "unknown parameter of %s; known: %s", s.ID, strings.Join(names, ", "))
			continue
		}
		v, err := p.normalize(given[name])
		if err != nil {
			errs.Add("params."+name, "%v", err)
			continue
		}
		out[name] = v
	}
	for i := range s.Params {
		p := &s.Params[i]
		if _, ok := given[p.Name]; ok {
			continue
		}
		def := p.Default
		if v, ok := preset.Params[p.Name]; ok {
			def = v
		}
		v, err := p.normalize(def)
		if err != nil {
			errs.Add("params."+p.Name, "default %v", err)
			continue
		}
		out[p.Name] = v
	}
	return out
}

// CanonicalJSON is the normal form of a normalised spec as bytes.
func (s RunSpec) CanonicalJSON() []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("scenario: marshal normalised spec: %v", err))
	}
	return b
}

// ID is the run id of a normalised spec: a hash of its normal form, so the
// same spec has the same id on every machine.
func (s RunSpec) ID() string {
	sum := sha256.Sum256(s.CanonicalJSON())
	return "r" + hex.EncodeToString(sum[:10])
}
