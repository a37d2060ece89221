package root_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// nextStep is what says the next step: a command to run, a flag or a
// variable to set, or cobra's suggestion of a command.
var nextStep = regexp.MustCompile(`(?m)^hint: .*("wbsctl |--[a-z]|WBSCTL_)|\b(run|give|set|pass|use|raise)\b[^.\n]*(wbsctl |--[a-z]|WBSCTL_)|(--[a-z-]+|-f) [A-Z]+.* is required|Did you mean this\?`)

// Every error of the first hour says the next step: the errors met by
// following the README's start and docs/commands.md, each made as a new
// user makes it, in a fresh folder.
func TestEveryErrorOfTheFirstHourSaysTheNextStep(t *testing.T) {
	srv := wbstest.Start(t)
	t.Chdir(t.TempDir())
	os.WriteFile("elements.csv", []byte("wbsElementCode,description\nP-100,Site works\n"), 0o600)
	os.WriteFile("bad.csv", []byte("wbsElementCode,description\n,no code\n"), 0o600)
	if res := (cmdtest.Run{}).Do(t, srv, "element", "create", "P-1"); res.Code != 0 {
		t.Fatalf("element create P-1: exit %d: %s", res.Code, res.ErrOut)
	}
	none := map[string]string{"WBSCTL_BASE_URL": "", "WBSCTL_CLIENT_ID": "", "WBSCTL_CLIENT_SECRET": ""}
	for _, tc := range []struct {
		name string
		run  cmdtest.Run
		args []string
		code int
	}{
		{"no base URL", cmdtest.Run{Env: none}, []string{"element", "list"}, cmdutil.ExitAuth},
		{"no credentials", cmdtest.Run{Env: map[string]string{"WBSCTL_CLIENT_ID": "", "WBSCTL_CLIENT_SECRET": ""}}, []string{"element", "list"}, cmdutil.ExitAuth},
		{"a refused secret", cmdtest.Run{Env: map[string]string{"WBSCTL_CLIENT_SECRET": "wrong"}}, []string{"element", "list"}, cmdutil.ExitAuth},
		{"no platform at the base URL", cmdtest.Run{Env: map[string]string{"WBSCTL_BASE_URL": "http://127.0.0.1:1"}}, []string{"element", "list"}, cmdutil.ExitError},
		{"a mistyped command", cmdtest.Run{}, []string{"elment", "list"}, cmdutil.ExitUsage},
		{"a mistyped subcommand", cmdtest.Run{}, []string{"element", "lst"}, cmdutil.ExitUsage},
		{"an element that exists", cmdtest.Run{}, []string{"element", "create", "P-1"}, cmdutil.ExitExists},
		{"an element that is not there, deleted", cmdtest.Run{}, []string{"element", "delete", "P-404"}, cmdutil.ExitNotFound},
		{"an element that is not there, updated", cmdtest.Run{}, []string{"element", "update", "P-404", "--description", "x"}, cmdutil.ExitNotFound},
		{"an element that is not there, its organizations", cmdtest.Run{}, []string{"element", "org", "list", "P-404"}, cmdutil.ExitNotFound},
		{"nothing to update", cmdtest.Run{}, []string{"element", "update", "P-1"}, cmdutil.ExitUsage},
		{"apply without a file", cmdtest.Run{}, []string{"apply"}, cmdutil.ExitUsage},
		{"apply of a file with no extension", cmdtest.Run{}, []string{"apply", "-f", "elements"}, cmdutil.ExitUsage},
		{"apply --prune without a bound from stdin", cmdtest.Run{Stdin: "wbsElementCode\nP-1\n"}, []string{"apply", "-f", "-", "--format", "csv", "--prune", "--yes"}, cmdutil.ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.run.Do(t, srv, tc.args...)
			if res.Code != tc.code {
				t.Errorf("wbsctl %s: exit %d, want %d: %s", strings.Join(tc.args, " "), res.Code, tc.code, res.ErrOut)
			}
			if !nextStep.MatchString(res.ErrOut) {
				t.Errorf("wbsctl %s says no next step:\n%s", strings.Join(tc.args, " "), res.ErrOut)
			}
		})
	}
	// What the first hour needs no next step for, because it works: a
	// state in a folder not made yet.
	res := (cmdtest.Run{}).Do(t, srv, "apply", "-f", "elements.csv", "--state", filepath.Join(".wbsctl", "state"))
	if res.Code != 0 {
		t.Fatalf("apply --state .wbsctl/state in a fresh folder: exit %d: %s", res.Code, res.ErrOut)
	}
}
