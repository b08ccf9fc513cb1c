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
