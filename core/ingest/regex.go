package ingest

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxRegexBytes bounds a parser or delimiter expression.
const MaxRegexBytes = 4096

// jsDot is JavaScript's "." without the s flag: any character but the
// line terminators (RE2's stops at \n only).
const jsDot = `[^\n\r\x{2028}\x{2029}]`

// compileShiViz compiles a regular expression written for ShiViz, which
// hands it to JavaScript with the flags "gm": named groups may be written
// the JavaScript way, (?<name>...), and are rewritten to RE2's
// (?P<name>...); ^ and $ match at line boundaries; "." stops at every
// JavaScript line terminator. What RE2 cannot do
// (lookaround, backreferences) is refused with the reason. RE2 runs in
// time linear in the input, so no expression can be catastrophic.
func compileShiViz(format Format, field, expr string) (*regexp.Regexp, error) {
	bad := func(msg string, args ...any) error {
		return &Error{Format: format, Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	if len(expr) > MaxRegexBytes {
		return nil, bad("the expression is %d bytes, more than %d", len(expr), MaxRegexBytes)
	}
	var b strings.Builder
	b.WriteString("(?m)")
	inClass := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\':
			b.WriteByte(c)
			if i+1 < len(expr) {
				i++
				b.WriteByte(expr[i])
			}
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case strings.HasPrefix(expr[i:], "(?<=") || strings.HasPrefix(expr[i:], "(?<!"):
			return nil, bad("lookbehind %q at byte %d: Go's RE2 syntax has no lookaround", expr[i:i+4], i)
		case strings.HasPrefix(expr[i:], "(?=") || strings.HasPrefix(expr[i:], "(?!"):
			return nil, bad("lookahead %q at byte %d: Go's RE2 syntax has no lookaround", expr[i:i+3], i)
		case strings.HasPrefix(expr[i:], "(?<"):
			b.WriteString("(?P<")
			i += 2
			continue
		case c == '.':
			b.WriteString(jsDot)
			continue
		}
		b.WriteByte(c)
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, bad("invalid regular expression (Go RE2 syntax): %v", err)
	}
	seen := map[string]bool{}
	for _, name := range re.SubexpNames() {
		if name == "" {
			continue
		}
		if seen[name] {
			return nil, bad("two capture groups are named %q", name)
		}
		seen[name] = true
	}
	return re, nil
}

// requireGroups refuses an expression without the named groups given.
func requireGroups(format Format, field string, re *regexp.Regexp, names ...string) error {
	var missing []string
	for _, n := range names {
		if re.SubexpIndex(n) < 0 {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return &Error{Format: format, Field: field, Msg: fmt.Sprintf("the expression has no named group %s (it needs %s)",
			strings.Join(missing, ", "), strings.Join(names, ", "))}
	}
	return nil
}
