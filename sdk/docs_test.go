package sdk_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The Go snippets of the docs are the bodies of testable examples, which
// compile and run with the tests: a snippet that no example holds, line
// for line, fails here.
func TestDocsSnippetsAreExamples(t *testing.T) {
	examples, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	held := norm(string(examples))
	block := regexp.MustCompile("(?s)```go\n(.*?)```")
	for _, page := range []string{"../README.md", "../docs/testing.md", "../docs/sdk.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(b), -1) {
			if !strings.Contains(held, norm(m[1])) {
				t.Errorf("%s: a Go snippet no example in example_test.go holds:\n%s", page, m[1])
			}
		}
	}
}
