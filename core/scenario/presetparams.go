package scenario

import (
	"fmt"
	"reflect"

	"github.com/racetrack-sim/racetrack/core/sim"
)

// Set is what a preset sets, named by the fields of the model's params
// struct P (see ParamsOf), so that a misspelled or mistyped parameter
// does not compile:
//
//	Presets: []scenario.Preset{
//		{ID: "lossy", Params: scenario.Set(func(p *Params) { p.Losses = 1 }), ...},
//	}
//
// set assigns values to the fields the preset sets, durations as
// sim.Time. Every field it assigns is a parameter of the preset, one
// equal to its default too; the others keep their defaults. It returns
// the preset's Params as a map by parameter name, in the normalised form
// (int64, float64 and milliseconds, bool, string, []int64), the form a
// preset written as a map literal (the older way, still accepted) has
// once normalised.
//
// Set tells which fields set assigns by running it on the defaults and
// on a copy in which every field differs from its default: a field set
// assigns ends equal in both. A set that computes a field from another
// one (p.B = p.A * 2) or changes a list in place cannot be told apart
// and panics, naming the field, as a malformed params struct does.
func Set[P any](set func(p *P)) map[string]any {
	fields, err := paramFields(reflect.TypeFor[P]())
	if err != nil {
		panic(fmt.Sprintf("scenario.Set: %v", err))
	}
	defaults := fillParams[P](fields, defaultValues(fields))
	other := otherThan(fields, defaults)
	fromDefaults, fromOther := copyParams(fields, defaults), copyParams(fields, other)
	set(&fromDefaults)
	set(&fromOther)
	field := func(p P, i int) any { return reflect.ValueOf(p).Field(i).Interface() }
	out := map[string]any{}
	for _, f := range fields {
		a, b := field(fromDefaults, f.index), field(fromOther, f.index)
		switch {
		case reflect.DeepEqual(a, b):
			out[f.param.Name] = normalised(f.param.Type, reflect.ValueOf(fromDefaults).Field(f.index))
		case !reflect.DeepEqual(a, field(defaults, f.index)) || !reflect.DeepEqual(b, field(other, f.index)):
			t := reflect.TypeFor[P]()
			panic(fmt.Sprintf("scenario.Set: params %s field %s: the preset computes it from other fields or changes it in place; assign it a value",
				t, t.Field(f.index).Name))
		}
	}
	return out
}

func defaultValues(fields []paramField) Values {
	v := Values{}
	for _, f := range fields {
		v[f.param.Name] = f.param.Default
	}
	return v
}

// copyParams copies p with lists of its own, so that a set that changes
// a list in place changes only the copy.
func copyParams[P any](fields []paramField, p P) P {
	c := p
	s := reflect.ValueOf(&c).Elem()
	for _, f := range fields {
		if f.param.Type == TypeIntList {
			fv := s.Field(f.index)
			fv.Set(reflect.AppendSlice(reflect.MakeSlice(fv.Type(), 0, fv.Len()), fv))
		}
	}
	return c
}

// otherThan is p with every parameter field changed.
func otherThan[P any](fields []paramField, p P) P {
	c := copyParams(fields, p)
	s := reflect.ValueOf(&c).Elem()
	for _, f := range fields {
		fv := s.Field(f.index)
		switch f.param.Type {
		case TypeInt, TypeDuration:
			fv.SetInt(fv.Int() + 1)
		case TypeFloat:
			fv.SetFloat(fv.Float() + 1)
		case TypeBool:
			fv.SetBool(!fv.Bool())
		case TypeEnum:
			fv.SetString(fv.String() + "\x00")
		case TypeIntList:
			fv.Set(reflect.Append(fv, reflect.ValueOf(int64(-1)).Convert(fv.Type().Elem())))
		}
	}
	return c
}

// normalised is field value v as Normalize would make the parameter.
func normalised(t ParamType, v reflect.Value) any {
	switch t {
	case TypeInt:
		return v.Int()
	case TypeDuration:
		return sim.Time(v.Int()).Millis()
	case TypeFloat:
		return v.Float()
	case TypeBool:
		return v.Bool()
	case TypeEnum:
		return v.String()
	case TypeIntList:
		out := make([]int64, v.Len())
		for i := range out {
			out[i] = v.Index(i).Int()
		}
		return out
	}
	panic("scenario.Set: unknown parameter type " + string(t))
}
