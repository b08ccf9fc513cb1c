package sim

import (
	"reflect"
	"unsafe"
)

// alias returns a settable view of v, which must be addressable. The
// reflective state codec decodes into a model's unexported fields, which
// reflect lets it read but not set; this is core's one use of unsafe
// (core/imports_test.go allows it in this file only), and it only ever
// aliases memory the codec has just allocated or the template's fields
// it copies from.
func alias(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// sameBytes reports whether a and b, addressable values of one flat type
// (see flat), hold the same bytes: a memory comparison where
// reflect.Value.Equal walks the type field by field, which made it most
// of an encoding's time. It may say false for equal values (a string in
// other memory, padding), which costs only the bytes of writing the
// field; it never says true for values that differ.
func sameBytes(a, b reflect.Value) bool {
	n := a.Type().Size()
	if n == 0 {
		return true
	}
	x := unsafe.Slice((*byte)(unsafe.Pointer(a.UnsafeAddr())), n)
	y := unsafe.Slice((*byte)(unsafe.Pointer(b.UnsafeAddr())), n)
	return string(x) == string(y)
}
