package apply_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/actionstest"
	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// The tests of what a CI job's journey relies on: a prune bounded by
// --max-deletes, a check of the file with no credential, and a stale plan
// or a failed change that says the next step where the job is read.

// writeCSV writes rows under the header of apply's CSV.
func writeCSV(t *testing.T, dir, name string, rows ...string) string {
	t.Helper()
	file := filepath.Join(dir, name)
	body := "wbsElementCode,description,isActive,businessOrganizations\n" + strings.Join(rows, "\n") + "\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// --max-deletes refuses a plan that deletes more than it allows, with
// nothing sent, whether the plan is made now, saved, or carried out from
// a saved plan; within the bound the prune runs.
func TestMaxDeletesBoundsAPrune(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	all := writeCSV(t, dir, "all.csv", "P-1,a,true,", "P-2,b,true,", "P-3,c,true,", "P-4,d,true,", "P-5,e,true,")
	if code, _, errOut := run(t, srv, "", "apply", "-f", all, "--rate", "0"); code != 0 {
		t.Fatalf("load: %d %s", code, errOut)
	}
	cut := writeCSV(t, dir, "cut.csv", "P-1,a,true,", "P-2,b,true,")
	saved := filepath.Join(dir, "wbs.plan")
	if code, _, errOut := run(t, srv, "", "apply", "-f", cut, "--prune", "--dry-run", "--out", saved, "--rate", "0"); code != 0 {
		t.Fatalf("plan: %d %s", code, errOut)
	}
	for name, args := range map[string][]string{
		"apply":      {"apply", "-f", cut, "--prune", "--yes", "--max-deletes", "2"},
		"dry run":    {"apply", "-f", cut, "--prune", "--dry-run", "--max-deletes", "2"},
		"saved plan": {"apply", "--plan", saved, "--max-deletes", "2"},
	} {
		srv.ResetStats()
		code, _, errOut := run(t, srv, "", append(args, "--rate", "0")...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, "it deletes 3, --max-deletes allows 2") || !strings.Contains(errOut, "nothing was sent") {
			t.Errorf("%s: exit %d, want %d naming the count: %s", name, code, cmdutil.ExitUsage, errOut)
		}
		if writes(srv) != 0 || len(srv.Elements()) != 5 {
			t.Errorf("%s: %d writes, %d elements left", name, writes(srv), len(srv.Elements()))
		}
	}
	if code, _, errOut := run(t, srv, "", "apply", "-f", cut, "--prune", "--yes", "--max-deletes", "3", "--rate", "0"); code != 0 || len(srv.Elements()) != 2 {
		t.Fatalf("within the bound: exit %d, %d elements: %s", code, len(srv.Elements()), errOut)
	}
}

// A stream cut short names fewer elements: --prune of stdin needs a bound.
func TestPruneOfStdinNeedsABound(t *testing.T) {
	srv := wbstest.Start(t)
	code, _, errOut := run(t, srv, `{"wbsElementCode":"P-1"}`+"\n", "apply", "-f", "-", "--format", "ndjson", "--prune", "--yes", "--rate", "0")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--max-deletes") || len(srv.Journal()) != 0 {
		t.Fatalf("exit %d, %d requests: %s", code, len(srv.Journal()), errOut)
	}
	code, _, errOut = run(t, srv, `{"wbsElementCode":"P-1"}`+"\n", "apply", "-f", "-", "--format", "ndjson", "--prune", "--yes", "--max-deletes", "0", "--rate", "0")
	if code != 0 {
		t.Fatalf("with a bound: exit %d: %s", code, errOut)
	}
}

// --check reads the file alone: a pull request's job runs it with no
// credential, sends nothing, and the reviewer reads its problems in the
// job summary and on the file's lines.
func TestCheckNeedsNoCredential(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	// WBSCTL_STATE, set for a pipeline's other jobs, is no concern of a
	// check.
	noCredential := map[string]string{"WBSCTL_BASE_URL": "", "WBSCTL_CLIENT_ID": "", "WBSCTL_CLIENT_SECRET": "",
		"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary, "WBSCTL_STATE": filepath.Join(dir, "state")}
	good := writeCSV(t, dir, "good.csv", "P-1,a,true,company=1000", "P-2,b,false,")
	res := cmdtest.Run{Env: noCredential}.Do(t, srv, "apply", "-f", good, "--check")
	if res.Code != 0 || !strings.Contains(res.ErrOut, "2 records, no problems") {
		t.Fatalf("a good file: exit %d: %s", res.Code, res.ErrOut)
	}
	bad := writeCSV(t, dir, "bad.csv", "P-1,a,true,", "P-2,b,maybe,")
	res = cmdtest.Run{Env: noCredential}.Do(t, srv, "apply", "-f", bad, "--check")
	if res.Code != cmdutil.ExitValidation || !strings.Contains(res.ErrOut, "::error file=") {
		t.Fatalf("a file with a problem: exit %d: %s", res.Code, res.ErrOut)
	}
	if len(srv.Journal()) != 0 {
		t.Fatalf("--check sent %d requests", len(srv.Journal()))
	}
	text, _ := os.ReadFile(summary)
	for _, want := range []string{"2 records, no problems", "`line 3`", "`isActive`"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the job summary has no %q:\n%s", want, text)
		}
	}
	if code, _, errOut := run(t, srv, "", "apply", "-f", good, "--check", "--dry-run"); code != cmdutil.ExitUsage {
		t.Errorf("--check --dry-run: exit %d: %s", code, errOut)
	}
}

// A stale plan (exit 8) and failed changes (exit 6) leave a job summary
// and an annotation that say what happened and the next step.
func TestStaleAndFailedRunsSayTheNextStep(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	gh := cmdtest.Run{Env: map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}}
	file := writeCSV(t, dir, "elements.csv", "P-1,a,true,", "P-2,b,true,")
	saved := filepath.Join(dir, "wbs.plan")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--out", saved, "--rate", "0"); code != 0 {
		t.Fatalf("plan: %d %s", code, errOut)
	}
	other := writeCSV(t, dir, "other.csv", "P-1,changed outside,true,")
	if code, _, errOut := run(t, srv, "", "apply", "-f", other, "--rate", "0"); code != 0 {
		t.Fatalf("outside change: %d %s", code, errOut)
	}
	res := gh.Do(t, srv, "apply", "--plan", saved, "--rate", "0")
	text, _ := os.ReadFile(summary)
	if res.Code != cmdutil.ExitPlanStale || !strings.Contains(res.ErrOut, "::error title=wbsctl apply%3A the plan is stale (exit 8)::") ||
		!strings.Contains(string(text), "the plan is stale (exit 8)") || !strings.Contains(string(text), "**Next:** Nothing was sent. Make the plan again") {
		t.Fatalf("stale: exit %d\nstderr: %s\nsummary: %s", res.Code, res.ErrOut, text)
	}

	failing := wbstest.Start(t, wbstest.WithFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultStatus, Status: 400, Nth: 2}))
	os.Remove(summary)
	res = gh.Do(t, failing, "apply", "-f", file, "--rate", "0")
	text, _ = os.ReadFile(summary)
	if res.Code != cmdutil.ExitPartial || !strings.Contains(res.ErrOut, "::error title=wbsctl apply%3A some changes failed (exit 6)::") ||
		!strings.Contains(string(text), "1 of 2 changes failed") || !strings.Contains(string(text), "**Next:**") {
		t.Fatalf("failed: exit %d\nstderr: %s\nsummary: %s", res.Code, res.ErrOut, text)
	}
}

// A state file that git tracks is refused before anything is sent: a CI
// cache miss would trust what a commit held.
func TestTrackedStateIsRefused(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := writeCSV(t, dir, "elements.csv", "P-1,a,true,")
	state := filepath.Join(dir, ".wbsctl", "state")
	os.MkdirAll(filepath.Dir(state), 0o700)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("untracked, outside a repository: %d %s", code, errOut)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-f", ".wbsctl/state"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	srv.ResetStats()
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--rate", "0")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "is tracked by git") || !strings.Contains(errOut, "git rm --cached") || len(srv.Journal()) != 0 {
		t.Fatalf("a tracked state: exit %d, %d requests: %s", code, len(srv.Journal()), errOut)
	}
}

// Under GitHub Actions, no line of platform text printed as data runs as
// a workflow command: a description holding a newline and
// ::add-mask:: is fenced in YAML, a table, CSV and an export, and JSON,
// which holds no such line, comes out exact.
func TestPlatformTextRunsNoWorkflowCommand(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "hostile.json")
	os.WriteFile(file, []byte(`[{"wbsElementCode":"P-1"}]`), 0o600)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0"); code != 0 {
		t.Fatalf("load: %d %s", code, errOut)
	}
	// The platform takes what a file may not hold.
	el, _ := srv.Element("P-1")
	el.Description = new("a\n::add-mask::x\n  ::error::y")
	srv.Put(el)
	gh := cmdtest.Run{Env: map[string]string{"GITHUB_ACTIONS": "true"}}
	for _, args := range [][]string{
		{"element", "list", "-o", "yaml"}, {"element", "list", "-o", "csv"}, {"element", "list", "--jq", ".[].description"},
		{"export", "--format", "yaml"}, {"export", "--format", "csv"}, {"element", "list", "-o", "json"},
	} {
		res := gh.Do(t, srv, args...)
		// export leaves out, and names, an element apply would refuse
		// on reading the file back: exit 6.
		if want := map[bool]int{true: cmdutil.ExitPartial, false: 0}[args[0] == "export"]; res.Code != want {
			t.Fatalf("%v: exit %d, want %d: %s", args, res.Code, want, res.ErrOut)
		}
		if run := actionstest.Commands(res.ErrOut + "::notice::after\n"); !slices.Equal(run, []string{"notice"}) {
			t.Errorf("%v: the runner would run %q of stderr:\n%s", args, run, res.ErrOut)
		}
		if run := actionstest.Commands(res.Out + "::notice::after\n"); !slices.Equal(run, []string{"notice"}) {
			t.Errorf("%v: the runner would run %q, want only the notice after the output, of:\n%s", args, run, res.Out)
		}
		if args[len(args)-1] == "json" && strings.Contains(res.Out, "::stop-commands::") {
			t.Errorf("%v: JSON holds no command line, but was fenced:\n%s", args, res.Out)
		}
	}
}

// --break-stale-after is refused where it could take a live run's lock:
// under three renewals, or on a local state, whose lock ends with its
// process; nothing is sent.
func TestBreakStaleAfterBounds(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := writeCSV(t, dir, "elements.csv", "P-1,a,true,")
	for args, want := range map[string]string{
		"s3://b/k 10s": "must be at least 1m30s",
		"local 10m":    "a local state's lock ends with its process",
		"none 10m":     "give both",
	} {
		state, after, _ := strings.Cut(args, " ")
		flags := []string{"apply", "-f", file, "--break-stale-after", after, "--rate", "0"}
		switch state {
		case "local":
			flags = append(flags, "--state", filepath.Join(dir, "state"))
		case "s3://b/k":
			flags = append(flags, "--state", state)
		}
		code, _, errOut := run(t, srv, "", flags...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, want) || len(srv.Journal()) != 0 {
			t.Errorf("%s: exit %d, %d requests: %s", args, code, len(srv.Journal()), errOut)
		}
	}
}
