package scenario

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// A model's parameters can be declared as a struct whose fields and tags
// give the schema: the model then receives the struct filled, so the
// schema, the defaults and the values the model reads cannot disagree.
//
//	type Params struct {
//		Clients int      `param:"clients" default:"2" min:"1" max:"8" help:"clients"`
//		Rate    float64  `default:"0.5" min:"0" max:"1" unit:"/ms" help:"write rate"`
//		Timed   bool     `default:"true" help:"timed or untimed"`
//		Think   sim.Time `default:"20" min:"0" max:"10000" help:"think time"` // ms
//		Order   string   `default:"fixed" enum:"fixed,random" help:"order of sizes"`
//		Sizes   []int64  `default:"1,2" min:"1" max:"64" help:"write sizes"`
//	}
//
// The tags: param (the name; default: the field's name with a lower-case
// first letter), default (required), min and max (numbers and lists),
// unit, help (required), enum (a string field's values, comma-separated).
// A field's Go type gives the parameter's type: int or int64 (int),
// float64 (float), bool, sim.Time (a duration, in milliseconds), a string
// type (enum; a named string type makes the values typed constants),
// []int64 (intlist). Unexported fields are not parameters.

var timeType = reflect.TypeFor[sim.Time]()

// paramField is one parameter of a params struct: where it is and its
// schema.
type paramField struct {
	index int
	param Param
}

// ParamsOf is the schema of params struct P, in field order, or an error
// naming the field whose tags are malformed.
func ParamsOf[P any]() ([]Param, error) {
	fields, err := paramFields(reflect.TypeFor[P]())
	if err != nil {
		return nil, err
	}
	out := make([]Param, len(fields))
	for i, f := range fields {
		out[i] = f.param
	}
	return out, nil
}

func paramFields(t reflect.Type) ([]paramField, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("params %s: not a struct", t)
	}
	var out []paramField
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		p, err := paramOf(sf)
		if err != nil {
			return nil, fmt.Errorf("params %s field %s: %w", t, sf.Name, err)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("params %s field %s: the name %q is taken", t, sf.Name, p.Name)
		}
		seen[p.Name] = true
		out = append(out, paramField{index: i, param: p})
	}
	return out, nil
}

func paramOf(sf reflect.StructField) (Param, error) {
	tag := sf.Tag
	p := Param{Name: tag.Get("param"), Unit: tag.Get("unit"), Help: tag.Get("help")}
	if p.Name == "" {
		r := []rune(sf.Name)
		r[0] = unicode.ToLower(r[0])
		p.Name = string(r)
	}
	if p.Help == "" {
		return p, fmt.Errorf("needs a help tag")
	}
	def, hasDef := tag.Lookup("default")
	if !hasDef {
		return p, fmt.Errorf("needs a default tag")
	}
	t := sf.Type
	var err error
	switch {
	case t == timeType:
		if p.Unit != "" && p.Unit != "ms" {
			return p, fmt.Errorf("a duration is in ms; unit %q is not", p.Unit)
		}
		p.Type, p.Unit = TypeDuration, "ms"
		p.Default, err = strconv.ParseFloat(def, 64)
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		p.Type = TypeInt
		p.Default, err = strconv.ParseInt(def, 10, 64)
	case t.Kind() == reflect.Float64:
		p.Type = TypeFloat
		p.Default, err = strconv.ParseFloat(def, 64)
	case t.Kind() == reflect.Bool:
		p.Type = TypeBool
		p.Default, err = strconv.ParseBool(def)
	case t.Kind() == reflect.String:
		p.Type, p.Default = TypeEnum, def
		enum := tag.Get("enum")
		if enum == "" {
			return p, fmt.Errorf("a string parameter needs an enum tag")
		}
		p.Enum = strings.Split(enum, ",")
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Int64:
		p.Type = TypeIntList
		var list []int64
		for _, s := range strings.Split(def, ",") {
			x, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if perr != nil {
				return p, fmt.Errorf("default %q: %w", def, perr)
			}
			list = append(list, x)
		}
		p.Default = list
	default:
		return p, fmt.Errorf("type %s is not a parameter type (int, int64, float64, bool, sim.Time, a string type, []int64)", t)
	}
	if err != nil {
		return p, fmt.Errorf("default %q: %w", def, err)
	}
	if _, ok := tag.Lookup("enum"); ok && p.Type != TypeEnum {
		return p, fmt.Errorf("a %s parameter takes no enum", p.Type)
	}
	for _, b := range []struct {
		key string
		to  **float64
	}{{"min", &p.Min}, {"max", &p.Max}} {
		s, ok := tag.Lookup(b.key)
		if !ok {
			continue
		}
		if p.Type == TypeBool || p.Type == TypeEnum {
			return p, fmt.Errorf("a %s parameter takes no %s", p.Type, b.key)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return p, fmt.Errorf("%s %q: %w", b.key, s, err)
		}
		*b.to = &f
	}
	if _, err := p.normalize(p.Default); err != nil {
		return p, fmt.Errorf("default %v %w", p.Default, err)
	}
	return p, nil
}

// fillParams sets the fields of a params struct from normalised values.
func fillParams[P any](fields []paramField, v Values) P {
	var out P
	s := reflect.ValueOf(&out).Elem()
	for _, f := range fields {
		fv := s.Field(f.index)
		name := f.param.Name
		switch f.param.Type {
		case TypeDuration:
			fv.SetInt(int64(v.Duration(name)))
		case TypeInt:
			fv.SetInt(int64(v.Int(name)))
		case TypeFloat:
			fv.SetFloat(v.Float(name))
		case TypeBool:
			fv.SetBool(v.Bool(name))
		case TypeEnum:
			fv.SetString(v.String(name))
		case TypeIntList:
			fv.Set(reflect.ValueOf(append([]int64(nil), v.Ints(name)...)).Convert(fv.Type()))
		}
	}
	return out
}
