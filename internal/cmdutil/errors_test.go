package cmdutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
)

// A create refused because the element exists exits 9 however the
// platform said so, also behind a hint or other wrapping; a 409 of
// another request, and a 400 of a malformed field, keep their codes.
func TestExitCodeOfAnElementThatExists(t *testing.T) {
	create := func(status int, p *sdk.Problem) *sdk.APIError {
		return &sdk.APIError{StatusCode: status, Method: "POST", Path: "/v1/wbs-elements", Problem: p}
	}
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"409 bare", create(409, nil), ExitExists},
		{"409 problem", create(409, &sdk.Problem{Title: "Conflict", Status: 409}), ExitExists},
		{"400 duplicate problem", create(400, &sdk.Problem{Type: "https://example.com/problems/duplicate", Status: 400}), ExitExists},
		{"400 detail", create(400, &sdk.Problem{Title: "Bad Request", Detail: `an element with code "P-1" already exists`}), ExitExists},
		{"wrapped with a hint", &HintError{Err: fmt.Errorf("P-1 exists: %w", create(409, nil)), Hint: "update it"}, ExitExists},
		{"400 malformed field", create(400, &sdk.Problem{Title: "Bad Request", Detail: "wbsElementCode: is 31 characters long"}), ExitValidation},
		{"400 without problem details", create(400, nil), ExitValidation},
		{"409 of an update", &sdk.APIError{StatusCode: 409, Method: "PUT", Path: "/v1/wbs-elements/P-1"}, ExitError},
		{"404 with a hint", &HintError{Err: &sdk.APIError{StatusCode: 404}, Hint: "x"}, ExitNotFound},
	} {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}

// A HintError prints as its error does, then the hint on a line of its
// own; -o json adds it as "hint". The hint is escaped like the rest.
func TestPrintErrorWritesTheHint(t *testing.T) {
	apiErr := &sdk.APIError{StatusCode: 400, Method: "POST", Path: "/v1/wbs-elements",
		Problem: &sdk.Problem{Type: "https://example.com/problems/duplicate", Title: "Bad Request", Status: 400, Detail: "it exists"}}
	err := &HintError{Err: fmt.Errorf("P-1 exists: %w", apiErr), Hint: "change it with update\x1b[2J"}
	var b bytes.Buffer
	PrintError(&b, err, false)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "error: P-1 exists: POST /v1/wbs-elements: Bad Request" || lines[len(lines)-1] != `hint: change it with update\x1b[2J` {
		t.Fatalf("%q", lines)
	}
	b.Reset()
	PrintError(&b, &HintError{Err: errors.New("plain"), Hint: "do this"}, false)
	if b.String() != "error: plain\nhint: do this\n" {
		t.Fatalf("%q", b.String())
	}
	b.Reset()
	PrintError(&b, err, true)
	var doc map[string]any
	if json.Unmarshal(b.Bytes(), &doc) != nil || doc["hint"] != "change it with update\x1b[2J" || doc["exitCode"] != float64(ExitExists) || doc["status"] != float64(400) {
		t.Fatalf("%s", b.String())
	}
}

// Every exit code is in `wbsctl help exit-codes` and in docs/exit-codes.md,
// and both list the same codes.
func TestExitCodesAreDocumented(t *testing.T) {
	codes := []int{ExitOK, ExitError, ExitUsage, ExitNotFound, ExitAuth, ExitValidation, ExitPartial, ExitPending, ExitPlanStale, ExitExists, ExitInterrupted}
	help := map[int]bool{}
	for _, m := range regexp.MustCompile(`(?m)^ {0,2}(\d+)  `).FindAllStringSubmatch(ExitCodesHelp, -1) {
		n, _ := strconv.Atoi(m[1])
		help[n] = true
	}
	md, err := os.ReadFile("../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := map[int]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+)(?:, (\d+))? \|`).FindAllStringSubmatch(string(md), -1) {
		for _, s := range m[1:] {
			if n, err := strconv.Atoi(s); err == nil {
				doc[n] = true
			}
		}
	}
	for _, c := range codes {
		if !help[c] {
			t.Errorf("exit code %d is not in ExitCodesHelp", c)
		}
		if !doc[c] {
			t.Errorf("exit code %d is not in docs/exit-codes.md", c)
		}
	}
	if len(help) != len(codes) || len(doc) != len(codes)+1 { // the docs list 143 too
		t.Errorf("help lists %v, the docs %v; the code has %v", help, doc, codes)
	}
}
