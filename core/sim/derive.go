package sim

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
)

// Clone and Hash derived by reflection, for a model that does not write
// them: a model's methods may be
//
//	func (m *Model) Clone() sim.Model  { return sim.DeepClone(m) }
//	func (m *Model) Hash(h *sim.Hasher) { sim.HashFields(h, m) }
//
// Both are pure and deterministic: fields in declaration order, map keys
// sorted. The rule they need: a model's exported fields are its state,
// its unexported fields are configuration set by New and never written
// after (DeepClone shares them between copies, as `c := *m` does; Go's
// reflection cannot write them). Derivable says whether a model keeps
// the rule where it can be seen, and modeltest.Conform checks both
// against the hand-written Clone and Hash of every model that has them.
// They cost several times the hand-written versions (see
// BenchmarkDerived): the built-in models keep theirs.

// maxDeriveDepth bounds the pointers followed: a model's state is a tree
// (a cycle would never end).
const maxDeriveDepth = 64

// DeepClone returns an independent deep copy of v's exported state:
// pointers, slices, maps and interfaces are copied, unexported fields
// shared. Functions and channels are shared.
func DeepClone[T any](v T) T {
	c := deepCopy(reflect.ValueOf(&v).Elem(), 0)
	return c.Interface().(T)
}

func deepCopy(v reflect.Value, depth int) reflect.Value {
	if depth > maxDeriveDepth {
		panic(fmt.Sprintf("sim: DeepClone: more than %d pointers deep (a cycle?) at a %s", maxDeriveDepth, v.Type()))
	}
	t := v.Type()
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(t)
		}
		n := reflect.New(t.Elem())
		n.Elem().Set(deepCopy(v.Elem(), depth+1))
		return n
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Zero(t)
		}
		n := reflect.New(t).Elem()
		n.Set(deepCopy(v.Elem(), depth+1))
		return n
	case reflect.Struct:
		n := reflect.New(t).Elem()
		n.Set(v) // unexported fields: shared
		for i := range t.NumField() {
			if t.Field(i).IsExported() && holdsReferences(t.Field(i).Type) {
				n.Field(i).Set(deepCopy(v.Field(i), depth))
			}
		}
		return n
	case reflect.Array:
		n := reflect.New(t).Elem()
		n.Set(v)
		if holdsReferences(t.Elem()) {
			for i := range v.Len() {
				n.Index(i).Set(deepCopy(v.Index(i), depth))
			}
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(t)
		}
		n := reflect.MakeSlice(t, v.Len(), v.Len())
		if !holdsReferences(t.Elem()) {
			reflect.Copy(n, v)
			return n
		}
		for i := range v.Len() {
			n.Index(i).Set(deepCopy(v.Index(i), depth))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(t)
		}
		n := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); { // building a map: order cannot matter
			n.SetMapIndex(deepCopy(it.Key(), depth), deepCopy(it.Value(), depth))
		}
		return n
	}
	return v
}

// holdsReferences says whether a value of type t may share memory when
// copied by assignment.
func holdsReferences(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return true
	case reflect.Array:
		return holdsReferences(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsReferences(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// Derivable reports why DeepClone cannot copy v independently, or nil: an
// unexported field (configuration, by the rule) that holds a slice, a
// map, a pointer or an interface is shared between copies, which is
// sound only if the model never writes it, and nothing can check that.
func Derivable(v any) error {
	return derivable(reflect.TypeOf(v), reflect.TypeOf(v).String(), 0)
}

func derivable(t reflect.Type, path string, depth int) error {
	if depth > maxDeriveDepth {
		return nil // a recursive type: DeepClone will say so if a value is that deep
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return derivable(t.Elem(), path, depth+1)
	case reflect.Map:
		if err := derivable(t.Key(), path, depth+1); err != nil {
			return err
		}
		return derivable(t.Elem(), path, depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && holdsReferences(f.Type) {
				return fmt.Errorf("%s.%s is unexported and holds a %s: DeepClone would share it", path, f.Name, f.Type)
			}
			if err := derivable(f.Type, path+"."+f.Name, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// HashFields folds every field of v into h, exported or not, in
// declaration order: through pointers, slices and arrays (with their
// lengths), maps (keys sorted), interfaces (with their dynamic type's
// name). A value that is Hashable folds itself. A function or a channel
// panics: it is not state.
func HashFields(h *Hasher, v any) {
	hashValue(h, reflect.ValueOf(v), 0)
}

var hashableType = reflect.TypeFor[Hashable]()

func hashValue(h *Hasher, v reflect.Value, depth int) {
	if depth > maxDeriveDepth {
		panic(fmt.Sprintf("sim: HashFields: more than %d pointers deep (a cycle?) at a %s", maxDeriveDepth, v.Type()))
	}
	if !v.IsValid() {
		h.Uint64(0)
		return
	}
	if v.Type().Implements(hashableType) && v.CanInterface() && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		v.Interface().(Hashable).HashInto(h)
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		h.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		h.Int64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		h.Uint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		h.Float(v.Float())
	case reflect.String:
		h.String(v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			h.Bool(false)
			return
		}
		h.Bool(true)
		if v.Kind() == reflect.Interface {
			h.String(v.Elem().Type().String())
		}
		hashValue(h, v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			hashValue(h, v.Field(i), depth)
		}
	case reflect.Array, reflect.Slice:
		h.Int(v.Len())
		for i := range v.Len() {
			hashValue(h, v.Index(i), depth)
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, compareKeys)
		h.Int(len(keys))
		for _, k := range keys {
			hashValue(h, k, depth)
			hashValue(h, v.MapIndex(k), depth)
		}
	default:
		panic(fmt.Sprintf("sim: HashFields: a %s is not state", v.Type()))
	}
}

// compareKeys orders map keys of the kinds a map of state is keyed by.
func compareKeys(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Bool:
		return cmp.Compare(boolInt(a.Bool()), boolInt(b.Bool()))
	case reflect.Struct, reflect.Array:
		n := a.Len
		if a.Kind() == reflect.Struct {
			n = a.NumField
		}
		for i := range n() {
			var x, y reflect.Value
			if a.Kind() == reflect.Struct {
				x, y = a.Field(i), b.Field(i)
			} else {
				x, y = a.Index(i), b.Index(i)
			}
			if c := compareKeys(x, y); c != 0 {
				return c
			}
		}
		return 0
	}
	panic(fmt.Sprintf("sim: HashFields: cannot order map keys of type %s", a.Type()))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
