package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// clockReader reads vector clocks written as JSON objects from host names
// to non-negative integers ({"a":1, "b": 2}). It is a small strict reader
// rather than encoding/json because a large log has one clock per event:
// names are numbered by intern without a string for each, and the
// entries of one clock are gathered in a buffer the reader keeps.
type clockReader struct {
	buf  []clockEntry
	seen []int // seen[name] is the number of the clock that last named it
	n    int   // clocks read
}

// read returns the clock's entries, in the order written, host being the
// number intern gives the name, zero entries included. The slice is the
// reader's, valid until the next read.
func (c *clockReader) read(s []byte, intern func([]byte) int32) ([]clockEntry, error) {
	c.n++
	c.buf = c.buf[:0]
	i := 0
	ws := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	ws()
	if i == len(s) || s[i] != '{' {
		return nil, errors.New("a vector clock must be a JSON object such as {\"host\": 1}")
	}
	i++
	ws()
	if i < len(s) && s[i] == '}' {
		i++
	} else {
		for {
			ws()
			key, n, err := jsonKey(s[i:])
			if err != nil {
				return nil, err
			}
			i += n
			ws()
			if i == len(s) || s[i] != ':' {
				return nil, fmt.Errorf("expected ':' after host %q at byte %d", key, i)
			}
			i++
			ws()
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '-' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == '+') {
				j++
			}
			v, err := strconv.ParseUint(string(s[i:j]), 10, 64)
			if err != nil || v > math.MaxUint32 || j > i+1 && s[i] == '0' {
				return nil, fmt.Errorf("the value of host %q is %q, not a clock value (an integer from 0 to %d)", key, s[i:j], uint32(math.MaxUint32))
			}
			id := intern(key)
			for len(c.seen) <= int(id) {
				c.seen = append(c.seen, 0)
			}
			if c.seen[id] == c.n {
				return nil, fmt.Errorf("host %q appears twice", key)
			}
			c.seen[id] = c.n
			c.buf = append(c.buf, clockEntry{host: id, v: uint32(v)})
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
			return nil, fmt.Errorf("expected ',' or '}' at byte %d", i)
		}
	}
	ws()
	if i != len(s) {
		return nil, fmt.Errorf("unexpected %q after the clock's closing brace", s[i:])
	}
	return c.buf, nil
}

// jsonKey reads the JSON string at the start of s and returns its text
// (a view into s unless it holds escapes) and the bytes it took.
func jsonKey(s []byte) ([]byte, int, error) {
	if len(s) == 0 || s[0] != '"' {
		return nil, 0, errors.New("expected a host name in double quotes")
	}
	escaped := false
	for j := 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return nil, 0, fmt.Errorf("a control character in a host name at byte %d", j)
		case c == '"':
			if !escaped {
				return s[1:j], j + 1, nil
			}
			var name string
			if err := json.Unmarshal(s[:j+1], &name); err != nil {
				return nil, 0, fmt.Errorf("a host name is not a valid JSON string: %v", err)
			}
			return []byte(name), j + 1, nil
		}
	}
	return nil, 0, errors.New("a host name's closing quote is missing")
}
