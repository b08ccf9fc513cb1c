package sim

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
)

// payloadTable numbers the payload types by their sorted names.
type payloadTable struct {
	types []reflect.Type
	index map[reflect.Type]int
}

func newPayloadTable(vals []any) (payloadTable, error) {
	pt := payloadTable{index: map[reflect.Type]int{}}
	for _, v := range vals {
		if v == nil {
			return pt, fmt.Errorf("%w: a nil payload type is listed", ErrCodec)
		}
		t := reflect.TypeOf(v)
		if _, dup := pt.index[t]; dup {
			continue
		}
		if err := checkType(t, nil, false); err != nil {
			return pt, fmt.Errorf("%w: payload type %s: %v", ErrCodec, t, err)
		}
		pt.index[t] = 0
		pt.types = append(pt.types, t)
	}
	slices.SortFunc(pt.types, func(a, b reflect.Type) int {
		return cmp.Or(cmp.Compare(a.PkgPath(), b.PkgPath()), cmp.Compare(a.String(), b.String()))
	})
	for i := 1; i < len(pt.types); i++ {
		if a, b := pt.types[i-1], pt.types[i]; a.PkgPath() == b.PkgPath() && a.String() == b.String() {
			return pt, fmt.Errorf("%w: two payload types are named %s", ErrCodec, a)
		}
	}
	for i, t := range pt.types {
		pt.index[t] = i
	}
	return pt, nil
}

// append writes 0 for a nil payload, else its type's number plus one and
// its value.
func (pt *payloadTable) append(b []byte, v any) ([]byte, error) {
	if v == nil {
		return append(b, 0), nil
	}
	return pt.appendValue(b, reflect.ValueOf(v))
}

// appendValue is append for the dynamic value of an interface.
func (pt *payloadTable) appendValue(b []byte, v reflect.Value) ([]byte, error) {
	i, ok := pt.index[v.Type()]
	if !ok {
		return b, fmt.Errorf("type %s is not a listed payload type (the model's PayloadTypes)", v.Type())
	}
	b = binary.AppendUvarint(b, uint64(i+1))
	e := valueEncoder{payloads: pt}
	return e.append(b, v, reflect.Value{})
}

// decode reads a payload append wrote and returns the bytes after it.
func (pt *payloadTable) decode(b []byte) (any, []byte, error) {
	v, rest, err := pt.decodeValue(b)
	if err != nil || !v.IsValid() {
		return nil, rest, err
	}
	return v.Interface(), rest, nil
}

// decodeValue reads a payload's value, invalid for nil.
func (pt *payloadTable) decodeValue(b []byte) (reflect.Value, []byte, error) {
	i, n := binary.Uvarint(b)
	if n <= 0 {
		return reflect.Value{}, b, fmt.Errorf("payload type: truncated or overlong varint")
	}
	b = b[n:]
	if i == 0 {
		return reflect.Value{}, b, nil
	}
	if i > uint64(len(pt.types)) {
		return reflect.Value{}, b, fmt.Errorf("payload type %d, the model lists %d", i, len(pt.types))
	}
	v := reflect.New(pt.types[i-1]).Elem()
	d := valueDecoder{payloads: pt, b: b}
	if err := d.decode(v, reflect.Value{}); err != nil {
		return reflect.Value{}, d.b, fmt.Errorf("%s: %v", pt.types[i-1], err)
	}
	return v, d.b, nil
}
