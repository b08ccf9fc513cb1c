package sim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// The reflective codec writes a value field by field, in declaration
// order, exported and unexported alike: booleans as a byte, integers as
// varints, floats byte-reversed (appendFloat), strings and slices with
// their length, maps sorted by their keys' bytes (map order never
// reaches them), interfaces as a listed payload type and its value.
// Slices, maps and pointers are written relative to the template's value
// at the same place: the same memory as the template's (configuration a
// model's copies share) costs one byte and is shared again on decoding.
const (
	refNil      = 0 // a nil slice, map or pointer
	refTemplate = 1 // the template's own slice, map or pointer
	refValue    = 2 // a value follows (for slices and maps: 2+length)
)

// checkType refuses what the reflective codec cannot carry: funcs,
// channels, unsafe pointers and complex numbers held by value, and types
// that contain themselves (whose values may be cycles). Behind a slice,
// map or pointer (shared) a func or channel is accepted, to be written
// only as the template's memory (a table of handlers filled in Init and
// shared by every copy): any other value of it fails to encode.
func checkType(t reflect.Type, stack []reflect.Type, shared bool) error {
	if slices.Contains(stack, t) {
		return fmt.Errorf("type %s contains itself (its values may be cycles, which the reflective codec cannot carry: declare AppendState and DecodeState)", t)
	}
	stack = append(stack, t)
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64, reflect.Interface,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nil
	case reflect.Func, reflect.Chan:
		if shared {
			return nil
		}
	case reflect.Array:
		return checkType(t.Elem(), stack, shared)
	case reflect.Slice, reflect.Pointer:
		return checkType(t.Elem(), stack, true)
	case reflect.Map:
		if err := checkType(t.Key(), stack, true); err != nil {
			return fmt.Errorf("map key: %w", err)
		}
		return checkType(t.Elem(), stack, true)
	case reflect.Struct:
		for i := range t.NumField() {
			if err := checkType(t.Field(i).Type, stack, shared); err != nil {
				return fmt.Errorf("field %s: %w", t.Field(i).Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("type %s is a %s, which the reflective codec cannot carry (declare AppendState and DecodeState)", t, t.Kind())
}

// flat reports whether values of t hold no memory of their own (no
// slice, map, pointer or interface), so that reflect can compare them.
func flat(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return flat(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return false
	}
	return true
}

// at is t's element i, or no value when t has none.
func at(t reflect.Value, i int) reflect.Value {
	if !t.IsValid() || i >= t.Len() {
		return reflect.Value{}
	}
	return t.Index(i)
}

// sameMemory reports whether v (a slice, map or pointer) is t's memory.
func sameMemory(v, t reflect.Value) bool {
	if !t.IsValid() || t.IsNil() || v.Pointer() != t.Pointer() {
		return false
	}
	return v.Kind() != reflect.Slice || v.Len() == t.Len()
}

type valueEncoder struct {
	payloads *payloadTable
}

// append writes v; t is the template's value at the same place, if any.
func (e *valueEncoder) append(b []byte, v, t reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.Bool:
		return append(b, byte(b2u(v.Bool()))), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return appendFloat(b, v.Float()), nil
	case reflect.String:
		return appendString(b, v.String()), nil
	case reflect.Array:
		var err error
		for i := 0; i < v.Len() && err == nil; i++ {
			b, err = e.append(b, v.Index(i), at(t, i))
		}
		return b, err
	case reflect.Struct:
		var err error
		for i := 0; i < v.NumField() && err == nil; i++ {
			var tf reflect.Value
			if t.IsValid() {
				tf = t.Field(i)
			}
			if b, err = e.append(b, v.Field(i), tf); err != nil {
				err = fmt.Errorf("%s: %w", v.Type().Field(i).Name, err)
			}
		}
		return b, err
	case reflect.Interface:
		if v.IsNil() {
			return append(b, refNil), nil
		}
		return e.payloads.appendValue(b, v.Elem())
	case reflect.Func, reflect.Chan:
		// Equal code pointers do not make closures equal: a func is
		// carried only inside the template's memory (above it), or nil.
		if v.IsNil() {
			return append(b, refNil), nil
		}
		return b, fmt.Errorf("a %s that is not the template's cannot be encoded", v.Type())
	}
	// A slice, map or pointer.
	switch {
	case v.IsNil():
		return append(b, refNil), nil
	case sameMemory(v, t):
		return append(b, refTemplate), nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		var te reflect.Value
		if t.IsValid() && !t.IsNil() {
			te = t.Elem()
		}
		return e.append(append(b, refValue), v.Elem(), te)
	case reflect.Slice:
		b = binary.AppendUvarint(b, uint64(refValue+v.Len()))
		var err error
		for i := 0; i < v.Len() && err == nil; i++ {
			if b, err = e.append(b, v.Index(i), at(t, i)); err != nil {
				err = fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return b, err
	case reflect.Map:
		return e.appendMap(b, v)
	}
	return b, fmt.Errorf("type %s cannot be encoded", v.Type())
}

// appendMap writes a map's entries sorted by their keys' encodings.
func (e *valueEncoder) appendMap(b []byte, v reflect.Value) ([]byte, error) {
	type entry struct{ k, v []byte }
	entries := make([]entry, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		k, err := e.append(nil, it.Key(), reflect.Value{})
		if err != nil {
			return b, fmt.Errorf("map key: %w", err)
		}
		val, err := e.append(nil, it.Value(), reflect.Value{})
		if err != nil {
			return b, fmt.Errorf("map value: %w", err)
		}
		entries = append(entries, entry{k, val})
	}
	slices.SortFunc(entries, func(x, y entry) int { return bytes.Compare(x.k, y.k) })
	b = binary.AppendUvarint(b, uint64(refValue+len(entries)))
	for _, en := range entries {
		b = append(append(b, en.k...), en.v...)
	}
	return b, nil
}

type valueDecoder struct {
	payloads *payloadTable
	b        []byte
}

func (d *valueDecoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		return 0, fmt.Errorf("truncated or overlong varint")
	}
	d.b = d.b[n:]
	return v, nil
}

// length reads a slice's or map's length (refValue+n), which the bytes
// left must be able to hold (elements of non-zero size take one byte at
// least) before anything is allocated.
func (d *valueDecoder) length(tag uint64, elem reflect.Type) (int, error) {
	n := tag - refValue
	limit := uint64(len(d.b))
	if elem.Size() == 0 {
		limit = 1 << 16
	}
	if n > limit {
		return 0, fmt.Errorf("length %d, more than the %d bytes left", n, len(d.b))
	}
	return int(n), nil
}

// decode reads into v (addressable, zero) what append wrote for it; t is
// the template's value at the same place, if any.
func (d *valueDecoder) decode(v, t reflect.Value) error {
	s := alias(v)
	switch v.Kind() {
	case reflect.Bool:
		if len(d.b) == 0 || d.b[0] > 1 {
			return fmt.Errorf("bool: truncated or not 0 or 1")
		}
		s.SetBool(d.b[0] == 1)
		d.b = d.b[1:]
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, n := binary.Varint(d.b)
		if n <= 0 {
			return fmt.Errorf("%s: truncated or overlong varint", v.Type())
		}
		if s.OverflowInt(x) {
			return fmt.Errorf("%d overflows %s", x, v.Type())
		}
		d.b = d.b[n:]
		s.SetInt(x)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x, err := d.uvarint()
		if err != nil {
			return fmt.Errorf("%s: %w", v.Type(), err)
		}
		if s.OverflowUint(x) {
			return fmt.Errorf("%d overflows %s", x, v.Type())
		}
		s.SetUint(x)
		return nil
	case reflect.Float32, reflect.Float64:
		x, err := d.uvarint()
		if err != nil {
			return fmt.Errorf("%s: %w", v.Type(), err)
		}
		s.SetFloat(math.Float64frombits(reverseBytes(x)))
		return nil
	case reflect.String:
		n, err := d.uvarint()
		if err != nil || n > uint64(len(d.b)) {
			return fmt.Errorf("string: truncated")
		}
		s.SetString(string(d.b[:n]))
		d.b = d.b[n:]
		return nil
	case reflect.Array:
		for i := range v.Len() {
			if err := d.decode(v.Index(i), at(t, i)); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case reflect.Struct:
		for i := range v.NumField() {
			var tf reflect.Value
			if t.IsValid() {
				tf = t.Field(i)
			}
			if err := d.decode(v.Field(i), tf); err != nil {
				return fmt.Errorf("%s: %w", v.Type().Field(i).Name, err)
			}
		}
		return nil
	case reflect.Interface:
		val, rest, err := d.payloads.decodeValue(d.b)
		d.b = rest
		if err != nil {
			return err
		}
		if val.IsValid() {
			if !val.Type().AssignableTo(v.Type()) {
				return fmt.Errorf("payload type %s is not a %s", val.Type(), v.Type())
			}
			s.Set(val)
		}
		return nil
	}
	return d.decodeRef(v, s, t)
}

// decodeRef decodes a slice, map or pointer.
func (d *valueDecoder) decodeRef(v, s, t reflect.Value) error {
	tag, err := d.uvarint()
	if err != nil {
		return fmt.Errorf("%s: %w", v.Type(), err)
	}
	switch {
	case tag == refNil:
		return nil
	case v.Kind() == reflect.Func || v.Kind() == reflect.Chan:
		return fmt.Errorf("a %s can only be nil or inside the template's memory (tag %d)", v.Type(), tag)
	case tag == refTemplate:
		if !t.IsValid() || t.IsNil() {
			return fmt.Errorf("%s: the template has none to share", v.Type())
		}
		s.Set(alias(t))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if tag != refValue {
			return fmt.Errorf("pointer tag %d", tag)
		}
		p := reflect.New(v.Type().Elem())
		var te reflect.Value
		if t.IsValid() && !t.IsNil() {
			te = t.Elem()
		}
		if err := d.decode(p.Elem(), te); err != nil {
			return err
		}
		s.Set(p)
		return nil
	case reflect.Slice:
		n, err := d.length(tag, v.Type().Elem())
		if err != nil {
			return err
		}
		sl := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			if err := d.decode(sl.Index(i), at(t, i)); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		s.Set(sl)
		return nil
	case reflect.Map:
		n, err := d.length(tag, v.Type().Key())
		if err != nil {
			return err
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			k, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			if err := d.decode(k, reflect.Value{}); err != nil {
				return fmt.Errorf("map key: %w", err)
			}
			if err := d.decode(val, reflect.Value{}); err != nil {
				return fmt.Errorf("map value: %w", err)
			}
			if m.MapIndex(k).IsValid() {
				return fmt.Errorf("map key written twice")
			}
			m.SetMapIndex(k, val)
		}
		s.Set(m)
		return nil
	}
	return fmt.Errorf("type %s cannot be decoded", v.Type())
}
