package apply_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// A run of an older commit's file never puts its values over a newer
// commit's: the state records the commit of its last apply, and a plan
// or a saved plan of an older commit is refused with exit 10 and nothing
// sent, on GitHub (GITHUB_SHA, the commit's time from git or
// WBSCTL_COMMIT_TIME) and GitLab (CI_COMMIT_SHA, CI_COMMIT_TIMESTAMP)
// alike, a refresh between them or not, unless --allow-older-commit.
func TestAnOlderCommitIsNeverAppliedOverANewerOne(t *testing.T) {
	older := map[string]map[string]string{
		"github": {"GITHUB_ACTIONS": "true", "GITHUB_SHA": "aaaa1111", "WBSCTL_COMMIT_TIME": "2026-12-01T10:00:00Z"},
		"gitlab": {"GITLAB_CI": "true", "CI_COMMIT_SHA": "aaaa1111", "CI_COMMIT_TIMESTAMP": "2026-12-01T10:00:00+00:00"},
	}
	newer := map[string]map[string]string{
		"github": {"GITHUB_ACTIONS": "true", "GITHUB_SHA": "bbbb2222", "WBSCTL_COMMIT_TIME": "2026-12-02T10:00:00Z"},
		"gitlab": {"GITLAB_CI": "true", "CI_COMMIT_SHA": "bbbb2222", "CI_COMMIT_TIMESTAMP": "2026-12-02T10:00:00+00:00"},
	}
	for ci := range older {
		t.Run(ci, func(t *testing.T) {
			srv := wbstest.Start(t)
			dir := t.TempDir()
			state := filepath.Join(dir, "state.json")
			v1 := cmdtest.WriteFile(t, dir, "v1.csv", "wbsElementCode,description\nW-0300,Package 300 v2\n")
			v2 := cmdtest.WriteFile(t, dir, "v2.csv", "wbsElementCode,description\nW-0300,Package 300 v3\n")
			do := func(env map[string]string, args ...string) cmdtest.Result {
				return cmdtest.Run{Env: env}.Do(t, srv, append(append([]string{"apply"}, args...), "--state", state, "--no-step-summary", "--rate", "0")...)
			}
			// The older commit's plan, saved before the newer is applied.
			plan := filepath.Join(dir, "v1.plan")
			if res := do(older[ci], "-f", v1, "--dry-run", "--out", plan); res.Code != 0 {
				t.Fatalf("the older commit's plan: exit %d: %s", res.Code, res.ErrOut)
			}
			if res := do(newer[ci], "-f", v2); res.Code != 0 {
				t.Fatalf("the newer commit's apply: exit %d: %s", res.Code, res.ErrOut)
			}
			// A refresh (the schedule's) rebuilds the records, not the
			// history: the last applied commit stays.
			if res := do(newer[ci], "-f", v2, "--refresh", "--dry-run"); res.Code != 0 {
				t.Fatalf("a refresh: exit %d: %s", res.Code, res.ErrOut)
			}
			srv.ResetStats()
			for name, args := range map[string][]string{
				"its plan":       {"-f", v1, "--dry-run"},
				"its apply":      {"-f", v1},
				"its saved plan": {"--plan", plan, "--report", filepath.Join(dir, "refused.ndjson")},
			} {
				res := do(older[ci], args...)
				if res.Code != cmdutil.ExitOlderCommit || writes(srv) != 0 || !strings.Contains(res.ErrOut, "aaaa1111") || !strings.Contains(res.ErrOut, "bbbb2222") {
					t.Fatalf("%s of the older commit: exit %d (want %d), %d writes: %s", name, res.Code, cmdutil.ExitOlderCommit, writes(srv), res.ErrOut)
				}
			}
			if el, _ := srv.Element("W-0300"); *el.Description != "Package 300 v3" {
				t.Fatalf("W-0300 holds %q: an older commit was applied", *el.Description)
			}
			if report, _ := os.ReadFile(filepath.Join(dir, "refused.ndjson")); !strings.Contains(string(report), `"refused":"the file is from an older commit`) {
				t.Fatalf("the refused apply's report: %s", report)
			}
			// The same commit again, and on purpose, the older one.
			if res := do(newer[ci], "-f", v2, "--dry-run"); res.Code != 0 {
				t.Fatalf("the newer commit planned again: exit %d: %s", res.Code, res.ErrOut)
			}
			if res := do(older[ci], "-f", v1, "--allow-older-commit"); res.Code != 0 {
				t.Fatalf("--allow-older-commit: exit %d: %s", res.Code, res.ErrOut)
			}
			if el, _ := srv.Element("W-0300"); *el.Description != "Package 300 v2" {
				t.Fatalf("W-0300 holds %q after --allow-older-commit", *el.Description)
			}
			text, _ := os.ReadFile(state)
			if !strings.Contains(string(text), `"sha":"aaaa1111"`) {
				t.Fatalf("the state does not record the last apply's commit:\n%.400s", text)
			}
		})
	}
}
