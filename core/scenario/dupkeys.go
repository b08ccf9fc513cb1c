package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// maxCheckDepth bounds how deep duplicateKey looks: every request shape
// is a few levels deep, and the walk must not recurse as deep as a
// hostile body nests.
const maxCheckDepth = 32

// duplicateKey reports the first object key that appears twice in one
// object of a well-formed JSON value (encoding/json would silently keep
// the last one, so two readers of the same body could disagree). Keys
// are compared ignoring case, as encoding/json matches struct fields.
func duplicateKey(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walkKeys(dec, "", 0)
}

func walkKeys(dec *json.Decoder, path string, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return nil // syntax errors are the decoder's to report
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxCheckDepth {
		return fieldErr(orBody(path), "nested more than %d levels deep", maxCheckDepth)
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil
			}
			k, _ := kt.(string)
			field := k
			if path != "" {
				field = path + "." + k
			}
			fold := strings.ToLower(k)
			if seen[fold] {
				return fieldErr(field, "duplicate key %q: each key may appear once in an object", truncateKey(k))
			}
			seen[fold] = true
			if err := walkKeys(dec, field, depth+1); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := walkKeys(dec, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
	}
	_, _ = dec.Token() // the closing delimiter
	return nil
}

func orBody(path string) string {
	if path == "" {
		return "body"
	}
	return path
}

func truncateKey(k string) string {
	if len(k) > 40 {
		return k[:40] + "…"
	}
	return k
}
