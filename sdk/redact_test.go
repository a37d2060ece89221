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

// A secret is redacted where it stands as a value, never as letters inside
// a word: a one-letter token leaves "exit" whole (issue 23, finding 27).
func TestRedactionReplacesWholeValues(t *testing.T) {
	for _, tt := range []struct {
		secret, in, want string
	}{
		{"t", "exit", "exit"},
		{"t", "Bearer t", "Bearer [REDACTED]"},
		{"t", `{"token":"t","note":"the test"}`, `{"token":"[REDACTED]","note":"the test"}`},
		{"t", "t", "[REDACTED]"},
		{"s3cr3t", "client s3cr3t refused; s3cr3ts are not s3cr3t_ly kept", "client [REDACTED] refused; s3cr3ts are not s3cr3t_ly kept"},
		{"tok-1", "Authorization: Bearer tok-1, tok-12", "Authorization: Bearer [REDACTED], tok-12"},
		{"=x=", "a=x=b", "a[REDACTED]b"},
		{"Ä", "ÄÖ Ä", "ÄÖ Ä"},
		{"Ä", "ÄÖ=Ä", "ÄÖ=[REDACTED]"},
		// A short secret inside a protocol name, a number, a path or a
		// sentence's words is left; echoed as a value, it is removed.
		{"1", "HTTP/1.1 400 Bad Request", "HTTP/1.1 400 Bad Request"},
		{"pw12", "https://id:pw12@platform.example/v1", "https://id:[REDACTED]@platform.example/v1"},
		{"ab1", "token=ab1@x; first line\nab1", "token=[REDACTED]@x; first line\n[REDACTED]"},
		{"1", "took 1.5 s, status 1", "took 1.5 s, status [REDACTED]"},
		{"v1", "GET /v1/wbs-elements", "GET /v1/wbs-elements"},
		{"wrong", "the client id or secret is wrong", "the client id or secret is wrong"},
		{"wrong", `the secret "wrong" is refused; secret=wrong; secret: wrong`, `the secret "[REDACTED]" is refused; secret=[REDACTED]; secret: [REDACTED]`},
		{"wrong", "wrong", "[REDACTED]"},
		// A secret of real length is removed from a server's sentence,
		// and from a path.
		{"s3cr3t-Value9", "the secret s3cr3t-Value9 is not valid.", "the secret [REDACTED] is not valid."},
		{"eyJhbGciOi.x-y.z", "/tokens/eyJhbGciOi.x-y.z/revoke", "/tokens/[REDACTED]/revoke"},
	} {
		c, err := NewClient("https://platform.example", WithAccessToken(tt.secret))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.redact(tt.in); got != tt.want {
			t.Errorf("secret %q in %q: %q, want %q", tt.secret, tt.in, got, tt.want)
		}
	}
}
