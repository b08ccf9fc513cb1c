package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// parseClock reads a vector clock written as a JSON object from host
// names to non-negative integers ({"a":1, "b": 2}), in the order
// written. It is a small strict reader rather than encoding/json because
// a large log has one clock per event.
func parseClock(s []byte) (names []string, vals []uint32, err error) {
	i := 0
	ws := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	ws()
	if i == len(s) || s[i] != '{' {
		return nil, nil, errors.New("a vector clock must be a JSON object such as {\"host\": 1}")
	}
	i++
	ws()
	if i < len(s) && s[i] == '}' {
		i++
	} else {
		for {
			ws()
			name, n, err := jsonString(s[i:])
			if err != nil {
				return nil, nil, err
			}
			i += n
			ws()
			if i == len(s) || s[i] != ':' {
				return nil, nil, fmt.Errorf("expected ':' after host %q at byte %d", name, i)
			}
			i++
			ws()
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '-' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == '+') {
				j++
			}
			v, err := strconv.ParseUint(string(s[i:j]), 10, 64)
			if err != nil || v > math.MaxUint32 || j > i+1 && s[i] == '0' {
				return nil, nil, fmt.Errorf("the value of host %q is %q, not a clock value (an integer from 0 to %d)", name, s[i:j], uint32(math.MaxUint32))
			}
			if slices.Contains(names, name) {
				return nil, nil, fmt.Errorf("host %q appears twice", name)
			}
			names = append(names, name)
			vals = append(vals, uint32(v))
			i = j
			ws()
			if i < len(s) && s[i] == ',' {
				i++
				continue
			}
			if i < len(s) && s[i] == '}' {
				i++
				break
			}
			return nil, nil, fmt.Errorf("expected ',' or '}' at byte %d", i)
		}
	}
	ws()
	if i != len(s) {
		return nil, nil, fmt.Errorf("unexpected %q after the clock's closing brace", s[i:])
	}
	return names, vals, nil
}

// jsonString reads the JSON string at the start of s and returns it and
// the bytes it took.
func jsonString(s []byte) (string, int, error) {
	if len(s) == 0 || s[0] != '"' {
		return "", 0, errors.New("expected a host name in double quotes")
	}
	escaped := false
	for j := 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return "", 0, fmt.Errorf("a control character in a host name at byte %d", j)
		case c == '"':
			if !escaped {
				return string(s[1:j]), j + 1, nil
			}
			var name string
			if err := json.Unmarshal(s[:j+1], &name); err != nil {
				return "", 0, fmt.Errorf("a host name is not a valid JSON string: %v", err)
			}
			return name, j + 1, nil
		}
	}
	return "", 0, errors.New("a host name's closing quote is missing")
}
