// Package quoted checks that the Go code blocks of a document are quoted
// from real code, so a tutorial cannot drift from the tested model it
// walks through.
package quoted

import (
	"errors"
	"strings"
)

// Missing returns how many ```go blocks markdown holds and the first
// line of each block that src does not contain word for word.
func Missing(markdown, src string) (blocks int, missing []string, err error) {
	for _, part := range strings.Split(markdown, "```go\n")[1:] {
		block, _, ok := strings.Cut(part, "```")
		if !ok {
			return blocks, missing, errors.New("quoted: an unterminated code block")
		}
		blocks++
		if !strings.Contains(src, block) {
			first, _, _ := strings.Cut(block, "\n")
			missing = append(missing, first)
		}
	}
	return blocks, missing, nil
}
