package element_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// hostile is what a platform could put in a problem or a value to take
// over a terminal: a title change ended by BEL, a clear screen, and a
// right-to-left override.
const hostile = "x\x1b]0;owned\x07y\x1b[2Jz\u202eq"

func raw(s string) bool {
	return strings.Contains(s, "\x1b") || strings.Contains(s, "\x07") || strings.Contains(s, "\u202e")
}

// Problem details and values from the platform reach a terminal escaped,
// whatever command prints them.
func TestPlatformTextReachesTheTerminalEscaped(t *testing.T) {
	srv := cmdtest.Behind(t, wbstest.New(), func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/wbs-elements" {
			return false
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"type":"about:blank","title":"` + jsonEsc(hostile) + `","status":400,"detail":"` + jsonEsc(hostile) + `"}`))
		return true
	})
	for _, tty := range []bool{true, false} {
		r := run(t, srv, tty, "", "element", "create", "P-1")
		if r.Code != 5 || raw(r.ErrOut) || !strings.Contains(r.ErrOut, `\x1b]0;owned\ay`) {
			t.Errorf("tty %v: exit %d, stderr %q", tty, r.Code, r.ErrOut)
		}
	}

	listed := wbstest.Start(t)
	d := hostile
	listed.Put(wbstest.Element{Code: "P-1", Description: &d, IsActive: true})
	for _, format := range []string{"table", "csv", "json", "yaml"} {
		r := run(t, listed, true, "", "element", "list", "-o", format)
		if r.Code != 0 || raw(r.Out) {
			t.Errorf("list -o %s on a terminal: exit %d, %q", format, r.Code, r.Out)
		}
	}
	r := run(t, listed, true, "", "element", "list", "--jq", ".[].description")
	if r.Code != 0 || raw(r.Out) {
		t.Errorf("--jq on a terminal: %q", r.Out)
	}
	r = run(t, listed, false, "", "element", "list", "-o", "csv")
	if r.Code != 0 || !strings.Contains(r.Out, hostile) {
		t.Errorf("csv on a pipe is not exact: %q", r.Out)
	}
}

// jsonEsc is s as the inside of a JSON string.
func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
