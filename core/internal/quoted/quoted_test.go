package quoted

import (
	"slices"
	"testing"
)

func TestMissingNamesTheBlocksNotInTheSource(t *testing.T) {
	doc := "intro\n```go\nfunc a() {}\n```\ntext\n```go\nfunc b() {\n}\n```\n"
	blocks, missing, err := Missing(doc, "package x\nfunc a() {}\n")
	if err != nil || blocks != 2 || !slices.Equal(missing, []string{"func b() {"}) {
		t.Fatalf("Missing = %d, %q, %v; want 2, [func b() {], nil", blocks, missing, err)
	}
	if _, _, err := Missing("```go\nfunc a() {}\n", ""); err == nil {
		t.Fatal("an unterminated block was accepted")
	}
}
