package scenario

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// ParamType is the type of a parameter value in JSON.
type ParamType string

// Parameter types. Durations are numbers of milliseconds in JSON.
const (
	TypeInt      ParamType = "int"
	TypeFloat    ParamType = "float"
	TypeBool     ParamType = "bool"
	TypeDuration ParamType = "duration"
	TypeEnum     ParamType = "enum"
	TypeIntList  ParamType = "intlist"
)

// Param is the schema of one parameter.
type Param struct {
	Name    string    `json:"name"`
	Type    ParamType `json:"type"`
	Default any       `json:"default"`
	Min     *float64  `json:"min"` // nil: no lower bound (null on the wire)
	Max     *float64  `json:"max"` // nil: no upper bound (null on the wire)
	Enum    []string  `json:"enum,omitempty"`
	Unit    string    `json:"unit"`
	Help    string    `json:"help"`
}

// Range returns a pointer pair for Param.Min/Max.
func Range(lo, hi float64) (*float64, *float64) { return &lo, &hi }

// IntParam declares an integer parameter in [lo, hi].
//
// Deprecated: declare the parameters as a struct whose tags are the
// schema (Model, ParamsOf).
func IntParam(name string, def, lo, hi int, unit, help string) Param {
	mn, mx := Range(float64(lo), float64(hi))
	return Param{Name: name, Type: TypeInt, Default: int64(def), Min: mn, Max: mx, Unit: unit, Help: help}
}

// FloatParam declares a real parameter in [lo, hi].
//
// Deprecated: declare the parameters as a struct whose tags are the
// schema (Model, ParamsOf).
func FloatParam(name string, def, lo, hi float64, unit, help string) Param {
	mn, mx := Range(lo, hi)
	return Param{Name: name, Type: TypeFloat, Default: def, Min: mn, Max: mx, Unit: unit, Help: help}
}

// DurationParam declares a duration in milliseconds in [lo, hi].
//
// Deprecated: declare the parameters as a struct whose tags are the
// schema (Model, ParamsOf).
func DurationParam(name string, def, lo, hi float64, help string) Param {
	mn, mx := Range(lo, hi)
	return Param{Name: name, Type: TypeDuration, Default: def, Min: mn, Max: mx, Unit: "ms", Help: help}
}

// BoolParam declares a boolean.
//
// Deprecated: declare the parameters as a struct whose tags are the
// schema (Model, ParamsOf).
func BoolParam(name string, def bool, help string) Param {
	return Param{Name: name, Type: TypeBool, Default: def, Help: help}
}

// EnumParam declares one of a fixed set of strings.
//
// Deprecated: declare the parameters as a struct whose tags are the
// schema (Model, ParamsOf).
func EnumParam(name, def string, values []string, help string) Param {
	return Param{Name: name, Type: TypeEnum, Default: def, Enum: values, Help: help}
}

// IntListParam declares a non-empty list of integers each in [lo, hi].
//
// Deprecated: declare the parameters as a struct whose tags are the
// schema (Model, ParamsOf).
func IntListParam(name string, def []int64, lo, hi int, unit, help string) Param {
	mn, mx := Range(float64(lo), float64(hi))
	return Param{Name: name, Type: TypeIntList, Default: def, Min: mn, Max: mx, Unit: unit, Help: help}
}

// maxListLen bounds list parameters.
const maxListLen = 64

// normalize checks v against the schema and returns its canonical value:
// int64, float64, bool, string or []int64.
func (p *Param) normalize(v any) (any, error) {
	switch p.Type {
	case TypeInt:
		f, ok := number(v)
		if !ok {
			return nil, fmt.Errorf("must be an integer, got %s", describe(v))
		}
		if f != math.Trunc(f) {
			return nil, fmt.Errorf("must be an integer, got %v", f)
		}
		if err := p.inRange(f); err != nil {
			return nil, err
		}
		return int64(f), nil
	case TypeFloat, TypeDuration:
		f, ok := number(v)
		if !ok {
			return nil, fmt.Errorf("must be a number%s, got %s", unitNote(p), describe(v))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("must be a finite number")
		}
		if err := p.inRange(f); err != nil {
			return nil, err
		}
		return f, nil
	case TypeBool:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("must be true or false, got %s", describe(v))
		}
		return b, nil
	case TypeEnum:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("must be one of %s, got %s", strings.Join(p.Enum, ", "), describe(v))
		}
		for _, e := range p.Enum {
			if e == s {
				return s, nil
			}
		}
		return nil, fmt.Errorf("must be one of %s, got %q", strings.Join(p.Enum, ", "), s)
	case TypeIntList:
		return p.normalizeList(v)
	}
	return nil, fmt.Errorf("has unknown type %q", p.Type)
}

func (p *Param) normalizeList(v any) (any, error) {
	var items []any
	switch l := v.(type) {
	case []any:
		items = l
	case []int64:
		for _, x := range l {
			items = append(items, float64(x))
		}
	default:
		return nil, fmt.Errorf("must be a list of integers, got %s", describe(v))
	}
	if len(items) == 0 || len(items) > maxListLen {
		return nil, fmt.Errorf("must hold 1 to %d integers, got %d", maxListLen, len(items))
	}
	out := make([]int64, len(items))
	for i, it := range items {
		f, ok := number(it)
		if !ok || f != math.Trunc(f) {
			return nil, fmt.Errorf("item %d must be an integer, got %s", i, describe(it))
		}
		if err := p.inRange(f); err != nil {
			return nil, fmt.Errorf("item %d %w", i, err)
		}
		out[i] = int64(f)
	}
	return out, nil
}

func (p *Param) inRange(f float64) error {
	if (p.Min != nil && f < *p.Min) || (p.Max != nil && f > *p.Max) {
		return fmt.Errorf("is %v, outside the allowed range [%v, %v]%s", f, deref(p.Min), deref(p.Max), unitNote(p))
	}
	return nil
}

func unitNote(p *Param) string {
	if p.Unit == "" {
		return ""
	}
	return " " + p.Unit
}

func deref(f *float64) any {
	if f == nil {
		return "unbounded"
	}
	return *f
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case interface{ Float64() (float64, error) }: // json.Number
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

// Values holds the normalised parameters of one run.
type Values map[string]any

// Int returns an integer parameter.
func (v Values) Int(name string) int { return int(v[name].(int64)) }

// Float returns a real parameter.
func (v Values) Float(name string) float64 { return v[name].(float64) }

// Bool returns a boolean parameter.
func (v Values) Bool(name string) bool { return v[name].(bool) }

// String returns an enum parameter.
func (v Values) String(name string) string { return v[name].(string) }

// Duration returns a duration parameter as virtual time.
func (v Values) Duration(name string) sim.Time { return sim.FromMillis(v[name].(float64)) }

// Ints returns an integer-list parameter.
func (v Values) Ints(name string) []int64 { return v[name].([]int64) }

// sortedKeys lists the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m { // order-independent: sorted below
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
