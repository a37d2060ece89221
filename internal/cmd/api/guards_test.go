package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// The token appears in no answer wbsctl api prints, even from a server
// that echoes it in the body: written as it came, and read by -o, --jq
// and --template, or as --paginate writes the items of a list.
func TestEchoedTokenInABodyIsRedacted(t *testing.T) {
	srv := wbstest.New()
	srv = cmdtest.Behind(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/v1/echo" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":[{"echo":%q}],"echo":%q}`, r.Header.Get("Authorization"), r.Header.Get("Authorization"))
		return true
	})
	for _, args := range [][]string{
		{"/v1/echo"},
		{"/v1/echo", "--jq", ".echo"},
		{"/v1/echo", "-o", "json"},
		{"/v1/echo", "--template", "{{.echo}}"},
		{"/v1/echo", "--paginate"},
		{"/v1/echo", "--paginate", "--slurp"},
		{"/v1/echo", "--paginate", "-o", "csv"},
	} {
		res := cmdtest.Run{}.Do(t, srv, append([]string{"api"}, args...)...)
		if res.Code != 0 || !strings.Contains(res.Out, "Bearer [REDACTED]") {
			t.Fatalf("%v: exit %d, want the echoed token redacted:\n%s%s", args, res.Code, res.Out, res.ErrOut)
		}
		if strings.Contains(res.Out+res.ErrOut, "eyJ") {
			t.Fatalf("%v: the token was shown:\n%s\n%s", args, res.Out, res.ErrOut)
		}
	}
}
