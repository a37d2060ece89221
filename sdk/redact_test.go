package sdk

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Every member of a problem, extensions at any depth and their names
// included, is scrubbed of secrets: a CLI prints the problem as JSON.
func TestProblemIsRedactedWhole(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED]") }
	body := `{"type":"https://x/SECRET","title":"SECRET","status":422,"detail":"SECRET","instance":"/SECRET",
		"echo":"Bearer SECRET","errors":[{"field":"code","value":"SECRET"}],"nested":{"SECRET":{"deep":["SECRET"]}},"count":3}`
	e := newAPIError("PUT", "/v1/wbs-elements/A", 422, http.Header{}, []byte(body), redact)
	if e.Problem == nil {
		t.Fatal("no problem read")
	}
	out, err := json.Marshal(e.Problem)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "SECRET") || strings.Contains(e.Error(), "SECRET") {
		t.Fatalf("a secret is left: %s / %s", out, e.Error())
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil || back["count"] != float64(3) || back["echo"] != "Bearer [REDACTED]" {
		t.Fatalf("extensions lost in redaction: %s", out)
	}
}
