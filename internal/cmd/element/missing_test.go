package element_test

import (
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// A code the platform does not hold prints nothing on stdout, in any
// format and on a terminal or not (no table header, no empty list a
// script would read as an answer): the error alone, exit 3.
func TestGetOfAMissingCodePrintsNothing(t *testing.T) {
	srv := wbstest.NewServer()
	t.Cleanup(srv.Close)
	srv.Put(wbstest.Element{Code: "A-1", IsActive: true})
	for _, format := range []string{"", "json", "csv", "yaml", "plain", "ndjson"} {
		for _, tty := range []bool{false, true} {
			args := []string{"element", "get", "NOPE", "-q"}
			if format != "" {
				args = append(args, "-o", format)
			}
			res := cmdtest.Run{TTY: tty}.Do(t, srv, args...)
			if res.Code != cmdutil.ExitNotFound || res.Out != "" || !strings.Contains(res.ErrOut, `NOPE`) || !strings.Contains(res.ErrOut, `not found`) {
				t.Errorf("-o %q, terminal %v: exit %d, stdout %q, stderr %q", format, tty, res.Code, res.Out, res.ErrOut)
			}
		}
	}
	// One found and one missing: the one found is shown, the other named.
	res := cmdtest.Run{}.Do(t, srv, "element", "get", "A-1", "NOPE", "-q", "-o", "csv")
	if res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Out, "A-1") || !strings.Contains(res.ErrOut, `"NOPE" not found`) {
		t.Errorf("A-1 and NOPE: exit %d: %s%s", res.Code, res.Out, res.ErrOut)
	}
}
