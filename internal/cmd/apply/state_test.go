package apply_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// linkedFile writes n elements with two links each; changed of them get
// another description and a link changed.
func linkedFile(t *testing.T, dir string, n, changed int) string {
	var b strings.Builder
	b.WriteString("wbsElementCode,description,isActive,businessOrganizations\n")
	for i := range n {
		desc, branch := fmt.Sprintf("element %d", i), "B1"
		if i < changed {
			desc, branch = desc+" changed", "B2"
		}
		fmt.Fprintf(&b, "S-%05d,%s,true,company=1000;branch=%s\n", i, desc, branch)
	}
	file := filepath.Join(dir, fmt.Sprintf("elements-%d.csv", changed))
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// loaded is a server holding the n elements of linkedFile, loaded by an
// apply with a state: the file, its folder and the state's path.
func loaded(t *testing.T, n int) (srv *wbstest.Server, dir, file, state string) {
	t.Helper()
	srv = wbstest.Start(t)
	dir = t.TempDir()
	file = linkedFile(t, dir, n, 0)
	state = filepath.Join(dir, "state.json")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("load: %d %s", code, errOut)
	}
	return srv, dir, file, state
}

func requests(srv *wbstest.Server) int {
	n := 0
	for _, c := range srv.Stats().Requests {
		n += c
	}
	return n
}

// With --state, a re-apply of an unchanged file costs the element list
// and the verify budget's reads (a twentieth of the elements); with
// changes, those and what the changes need.
func TestStateReappliesAtTheCostOfTheList(t *testing.T) {
	const n = 1000
	verify := (n + 19) / 20
	srv := wbstest.Start(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	file := linkedFile(t, dir, n, 0)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("first apply: %d %s", code, errOut)
	}
	srv.ResetStats()
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0"); code != 0 || requests(srv) < n {
		t.Fatalf("without state: exit %d, %d requests: %s", code, requests(srv), errOut)
	}
	withoutState := requests(srv)
	srv.ResetStats()
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("with state: %d %s", code, errOut)
	}
	if got, limit := requests(srv), n/100+2+verify; got > limit {
		t.Fatalf("an unchanged re-apply with state cost %d requests, want at most %d (without state: %d)", got, limit, withoutState)
	}
	// 1 % changed: a description and a link each, so a links read, a
	// removal and an update per changed element.
	changed := linkedFile(t, dir, n, n/100)
	srv.ResetStats()
	if code, _, errOut := run(t, srv, "", "apply", "-f", changed, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("changed: %d %s", code, errOut)
	}
	if got, limit := requests(srv), n/100+2+verify+3*(n/100); got > limit {
		t.Fatalf("1 %% changed cost %d requests, want at most %d", got, limit)
	}
	if el, _ := srv.Element("S-00003"); !strings.HasSuffix(*el.Description, "changed") || el.BusinessOrganizations[1].Code != "B2" {
		t.Fatalf("S-00003 not changed: %+v", el)
	}
	srv.ResetStats()
	if code, _, _ := run(t, srv, "", "apply", "-f", changed, "--state", state, "--rate", "0"); code != 0 || writes(srv) != 0 || requests(srv) > n/100+2+verify {
		t.Fatalf("re-apply after the change: exit %d, %d writes, %d requests", code, writes(srv), requests(srv))
	}
}

// A link changed in the platform's own screens, where the file and the
// state agree, is not seen with a state trusted whole (--verify-budget
// 0); --refresh reads every link, repairs the platform and the state.
func TestRefreshRepairsAnOutsideChange(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	file := linkedFile(t, dir, 20, 0)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("first apply: %d %s", code, errOut)
	}
	el, _ := srv.Element("S-00007")
	el.BusinessOrganizations = el.BusinessOrganizations[:1]
	srv.Put(el)
	run(t, srv, "", "apply", "-f", file, "--state", state, "--verify-budget", "0", "--rate", "0")
	if el, _ := srv.Element("S-00007"); len(el.BusinessOrganizations) != 1 {
		t.Fatal("the state was not trusted: the outside change was seen with --verify-budget 0")
	}
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--refresh", "--rate", "0"); code != 0 {
		t.Fatalf("refresh: %d %s", code, errOut)
	}
	if el, _ := srv.Element("S-00007"); len(el.BusinessOrganizations) != 2 {
		t.Fatalf("--refresh did not repair the links: %v", el.BusinessOrganizations)
	}
	srv.ResetStats()
	if code, _, _ := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 || requests(srv) > 3 {
		t.Fatalf("after --refresh: exit %d, %d requests", code, requests(srv))
	}
}

// Links removed outside wbsctl, where the file and the state agree, are
// planned and restored within the verify budget's bound: with the
// default, a twentieth of the elements a plan, each within 20 plans, and
// no plan reads more than its budget. The plans are those of a pipeline:
// a dry run, then the apply of what it planned.
func TestALinkRemovedOutsideIsCaughtWithinTheBound(t *testing.T) {
	const n, bound = 60, 20
	for _, removed := range [][]string{{"S-00000"}, {"S-00059"}, {"S-00007", "S-00031", "S-00058"}} {
		t.Run(strings.Join(removed, ","), func(t *testing.T) {
			srv, _, file, state := loaded(t, n)
			for _, code := range removed {
				el, _ := srv.Element(code)
				el.BusinessOrganizations = el.BusinessOrganizations[:1]
				srv.Put(el)
			}
			caught := map[string]int{}
			for plan := 1; plan <= bound && len(caught) < len(removed); plan++ {
				srv.ResetStats()
				code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--rate", "0")
				if code != 0 || srv.Stats().Requests[wbstest.OpListLinks] > (n+19)/20 {
					t.Fatalf("plan %d: exit %d, %d reads of links, want at most %d: %s", plan, code, srv.Stats().Requests[wbstest.OpListLinks], (n+19)/20, errOut)
				}
				if !strings.Contains(errOut, fmt.Sprintf("links verified this run: %d of %d", (n+19)/20, n)) {
					t.Fatalf("plan %d does not say what it verified: %s", plan, errOut)
				}
				if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--verify-budget", "0", "--rate", "0"); code != 0 {
					t.Fatalf("apply %d: %d %s", plan, code, errOut)
				}
				for _, code := range removed {
					if el, _ := srv.Element(code); len(el.BusinessOrganizations) == 2 && caught[code] == 0 {
						caught[code] = plan
					}
				}
			}
			for _, code := range removed {
				if caught[code] == 0 {
					t.Errorf("%s's removed link was not planned within %d plans", code, bound)
				}
			}
		})
	}
}

func TestStateFileErrors(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := linkedFile(t, dir, 3, 0)
	for name, body := range map[string]string{
		"corrupt":  `{"formatVersion":1,"baseUrl":`,
		"version":  `{"formatVersion":99,"baseUrl":"x","clientId":"y","elements":{}}`,
		"platform": `{"formatVersion":1,"baseUrl":"https://other.example","clientId":"integrationhub-1","elements":{}}`,
	} {
		state := filepath.Join(dir, name+".json")
		os.WriteFile(state, []byte(body), 0o600)
		srv.ResetStats()
		code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0")
		if code == 0 || !strings.Contains(errOut, "--refresh") || len(srv.Journal()) != 0 {
			t.Errorf("%s: exit %d, %d requests: %s", name, code, len(srv.Journal()), errOut)
		}
		if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--refresh", "--rate", "0"); code != 0 {
			t.Errorf("%s with --refresh: exit %d: %s", name, code, errOut)
		}
	}
	if code, _, _ := run(t, srv, "", "apply", "-f", file, "--refresh"); code != cmdutil.ExitUsage {
		t.Errorf("--refresh without --state: exit %d", code)
	}
}

// A second apply on a state file in use fails at once.
func TestConcurrentAppliesOnOneStateFile(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	holder := statestore.NewHolder("apply -f other.csv", "https://ci.example/jobs/7", time.Now())
	lease, err := statestore.NewFile(state).Lock(context.Background(), holder, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock := func() { lease.Release(context.Background()) }
	code, _, errOut := run(t, srv, "", "apply", "-f", linkedFile(t, dir, 3, 0), "--state", state, "--rate", "0")
	// With --lock-timeout it waits, says for whom, and fails when the
	// time is up.
	waitCode, _, waitOut := run(t, srv, "", "apply", "-f", linkedFile(t, dir, 3, 0), "--state", state, "--lock-timeout", "300ms", "--rate", "0")
	unlock()
	if code == 0 || !strings.Contains(errOut, "another wbsctl run holds the state's lock") || len(srv.Journal()) > 2 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if waitCode == 0 || !strings.Contains(waitOut, "waiting up to 300ms for the state's lock, held by apply -f other.csv") ||
		!strings.Contains(waitOut, "after waiting 300ms") {
		t.Fatalf("with --lock-timeout: exit %d: %s", waitCode, waitOut)
	}
	// The refusal names who holds the lock: what, where, since when, the
	// job, and says how to wait.
	for _, want := range []string{"apply -f other.csv", "pid ", holder.ID, "https://ci.example/jobs/7", "--lock-timeout"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the refusal does not name %q: %s", want, errOut)
		}
	}
}

// A run of updates stopped by SIGINT half-way exits 130 and says how to
// finish; the next run, with the state, updates only what was not done,
// the one after it nothing, and the platform holds the file: no element
// created twice, no change lost. The engine's
// TestInterruptedRunFinishesOnTheNextRun holds the same of creates.
func TestStateAfterAnInterruptedRun(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithFaults(wbstest.FaultRule{Operation: wbstest.OpUpdate, Kind: wbstest.FaultLatency, Latency: 20 * time.Millisecond}))
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	if code, _, errOut := run(t, srv, "", "apply", "-f", linkedFile(t, dir, 200, 0), "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("first apply: %d %s", code, errOut)
	}
	changed := linkedFile(t, dir, 200, 200)
	done := make(chan cmdtest.Result, 1)
	go func() {
		done <- cmdtest.Run{}.Do(t, srv, "apply", "-f", changed, "--state", state, "--rate", "0", "--concurrency", "2")
	}()
	waitFor(t, "updates to start", func() bool { return srv.Stats().Requests[wbstest.OpUpdate] >= 20 })
	interrupt(t)
	res := <-done
	if res.Code != cmdutil.ExitInterrupted || !strings.Contains(res.ErrOut, "interrupted by SIGINT: run the same command again to finish") {
		t.Fatalf("interrupted run: exit %d: %s", res.Code, res.ErrOut)
	}
	// The summary counts the outcomes by action: "unchanged: 20 ok;
	// update: 180 ok (…)".
	count := func(errOut, action string) int {
		m := regexp.MustCompile(`(?m)\b` + action + `: (\d+) ok\b`).FindStringSubmatch(errOut)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	code, _, errOut := run(t, srv, "", "apply", "-f", changed, "--state", state, "--rate", "0")
	update, unchanged := count(errOut, "update"), count(errOut, "unchanged")
	if code != 0 || count(errOut, "create") != 0 || update == 0 || unchanged < 20 || update+unchanged != 200 {
		t.Fatalf("the next run: exit %d, %d updated, %d unchanged: %s", code, update, unchanged, errOut)
	}
	code, _, errOut = run(t, srv, "", "apply", "-f", changed, "--state", state, "--rate", "0")
	if code != 0 || count(errOut, "unchanged") != 200 || count(errOut, "update") != 0 {
		t.Fatalf("the run after: exit %d: %s", code, errOut)
	}
	if got := srv.Stats().Creates; got != 200 {
		t.Fatalf("%d creates for 200 elements", got)
	}
	for _, el := range srv.Elements() {
		if !strings.HasSuffix(*el.Description, "changed") || len(el.BusinessOrganizations) != 2 || el.BusinessOrganizations[1].Code != "B2" {
			t.Fatalf("%s not converged: %+v", el.Code, el)
		}
	}
}

// A state that cannot be written at the end of a run is an error that
// says how to recover, on a line of its own once the progress has ended;
// the changes were made, and the run exits 0.
func TestStateThatCannotBeWrittenAtTheEndIsReported(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "states")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// Slow creates, so that the bar is drawn.
	srv := wbstest.New(wbstest.WithFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultLatency, Latency: 150 * time.Millisecond}))
	var once sync.Once
	cmdtest.Behind(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/wbs-elements" {
			// The state was written before the first change; its folder
			// is gone before the last write (root may write anywhere).
			once.Do(func() { os.RemoveAll(dir) })
		}
		return false
	})
	file := cmdtest.WriteFile(t, t.TempDir(), "f.csv", csvFile)
	code, _, errOut := runMode(t, srv, true, "", "apply", "-f", file, "--state", filepath.Join(dir, "state.json"), "--rate", "0", "--concurrency", "1")
	if !strings.Contains(errOut, "applying") {
		t.Fatalf("no progress bar was drawn: %q", errOut)
	}
	warning := strings.Index(errOut, "error: writing the state: ")
	if code != 0 || warning < 0 || !strings.Contains(errOut[warning:], "run with --refresh next time\n") {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	if bar := strings.LastIndex(errOut, "\r"); bar > warning || warning > 0 && errOut[warning-1] != '\n' && errOut[warning-1] != '\r' {
		t.Fatalf("the error is on the progress bar's line: %q", errOut)
	}
	if len(srv.Elements()) == 0 {
		t.Fatal("nothing was created")
	}
}

// The state is what wbsctl has seen the platform hold: after any one run
// with --state (a dry run, an apply, or a saved plan carried out with a
// state of its own, as a CI job whose plan job's state is thrown away),
// the next plan of an unchanged platform costs the element list and the
// token, ⌈N/100⌉ + 2 requests, and the links of the verify budget's
// twentieth, ⌈N/20⌉, whatever the platform held before the first run.
func TestEveryRunFillsTheState(t *testing.T) {
	const n = 300
	budget := (n+99)/100 + 2 + (n+19)/20
	platforms := map[string]func(t *testing.T, srv *wbstest.Server, file string){
		"empty": func(*testing.T, *wbstest.Server, string) {},
		"holding every element": func(t *testing.T, srv *wbstest.Server, file string) {
			if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0"); code != 0 {
				t.Fatalf("loading the platform: %d %s", code, errOut)
			}
		},
		"holding every element, one with a link changed": func(t *testing.T, srv *wbstest.Server, file string) {
			if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0"); code != 0 {
				t.Fatalf("loading the platform: %d %s", code, errOut)
			}
			el, _ := srv.Element("S-00042")
			el.BusinessOrganizations = el.BusinessOrganizations[:1]
			srv.Put(el)
		},
	}
	firstRuns := map[string]func(t *testing.T, srv *wbstest.Server, dir, file, state string){
		"a dry run": func(t *testing.T, srv *wbstest.Server, dir, file, state string) {
			if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--rate", "0"); code != 0 {
				t.Fatalf("dry run: %d %s", code, errOut)
			}
			// A dry run that changes nothing leaves the platform as it
			// was: make it so, so that the next plan finds nothing.
			if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0"); code != 0 {
				t.Fatalf("apply: %d %s", code, errOut)
			}
			if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--rate", "0"); code != 0 {
				t.Fatalf("dry run: %d %s", code, errOut)
			}
		},
		"an apply": func(t *testing.T, srv *wbstest.Server, dir, file, state string) {
			if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
				t.Fatalf("apply: %d %s", code, errOut)
			}
		},
		"a saved plan, its plan's state thrown away": func(t *testing.T, srv *wbstest.Server, dir, file, state string) {
			planned := filepath.Join(dir, "plan-job.state")
			saved := filepath.Join(dir, "wbs.plan")
			if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", planned, "--dry-run", "--out", saved, "--rate", "0"); code != 0 {
				t.Fatalf("plan: %d %s", code, errOut)
			}
			if code, _, errOut := run(t, srv, "", "apply", "--plan", saved, "--state", state, "--rate", "0"); code != 0 {
				t.Fatalf("apply --plan: %d %s", code, errOut)
			}
		},
		"a saved plan made without a state": func(t *testing.T, srv *wbstest.Server, dir, file, state string) {
			saved := filepath.Join(dir, "wbs.plan")
			if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--out", saved, "--rate", "0"); code != 0 {
				t.Fatalf("plan: %d %s", code, errOut)
			}
			if code, _, errOut := run(t, srv, "", "apply", "--plan", saved, "--state", state, "--rate", "0"); code != 0 {
				t.Fatalf("apply --plan: %d %s", code, errOut)
			}
		},
	}
	for platform, load := range platforms {
		for first, do := range firstRuns {
			t.Run(platform+"/"+first, func(t *testing.T) {
				srv := wbstest.Start(t)
				dir := t.TempDir()
				file := linkedFile(t, dir, n, 0)
				state := filepath.Join(dir, "state.json")
				load(t, srv, file)
				do(t, srv, dir, file, state)
				srv.ResetStats()
				code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--detailed-exitcode", "--rate", "0")
				if code != 0 {
					t.Fatalf("the next plan: exit %d, want 0 (nothing to do): %s", code, errOut)
				}
				if got := requests(srv); got > budget {
					t.Fatalf("the next plan cost %d requests, want at most ⌈%d/100⌉ + 2 + ⌈%d/20⌉ = %d", got, n, n, budget)
				}
			})
		}
	}
}

// A saved plan promises every element it read as it read it, unchanged
// ones too: an element the plan found unchanged and that someone changed
// by hand since refuses the apply with exit 8 before any write, names
// the element, writes the report, and leaves the state as it was.
func TestSavedPlanRefusesAHandChangeToAnUnchangedElement(t *testing.T) {
	for name, move := range map[string]func(*wbstest.Server){
		"description": func(srv *wbstest.Server) {
			el, _ := srv.Element("S-00002")
			el.Description = new("hand change")
			srv.Put(el)
		},
		"deleted": func(srv *wbstest.Server) {
			if code, _, errOut := run(t, srv, "", "element", "delete", "S-00002"); code != 0 {
				t.Fatalf("delete: %d %s", code, errOut)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv, dir, file, state := loaded(t, 5)
			// One update to S-00004; S-00002 is planned unchanged.
			text, _ := os.ReadFile(file)
			changed := filepath.Join(dir, "changed.csv")
			os.WriteFile(changed, []byte(strings.Replace(string(text), "S-00004,element 4,", "S-00004,element 4 renamed,", 1)), 0o600)
			saved := filepath.Join(dir, "wbs.plan")
			if code, _, errOut := run(t, srv, "", "apply", "-f", changed, "--state", state, "--dry-run", "--out", saved, "--rate", "0"); code != 0 {
				t.Fatalf("plan: %d %s", code, errOut)
			}
			before, _ := os.ReadFile(state)
			move(srv)
			srv.ResetStats()
			report := filepath.Join(dir, "report.ndjson")
			code, _, errOut := run(t, srv, "", "apply", "--plan", saved, "--state", state, "--report", report, "--rate", "0")
			if code != cmdutil.ExitPlanStale || writes(srv) != 0 || !strings.Contains(errOut, "1 element moved: S-00002") {
				t.Fatalf("apply --plan after a hand change: exit %d (want %d), %d writes: %s", code, cmdutil.ExitPlanStale, writes(srv), errOut)
			}
			if after, _ := os.ReadFile(state); string(after) != string(before) {
				t.Fatalf("a refused plan wrote the state")
			}
			text, _ = os.ReadFile(report)
			lines := strings.Split(strings.TrimSpace(string(text)), "\n")
			var moved struct {
				Code   string `json:"wbsElementCode"`
				Status string
			}
			var summary struct {
				Summary struct {
					Moved   int
					Refused string
				}
			}
			if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &moved) != nil || json.Unmarshal([]byte(lines[1]), &summary) != nil ||
				moved.Code != "S-00002" || moved.Status != "moved" || summary.Summary.Moved != 1 || !strings.Contains(summary.Summary.Refused, "S-00002") {
				t.Fatalf("the report of a refused plan:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// A dry run records what it read of an element it plans to update, so
// that carrying the change out later reads no link the dry run read: the
// element list, the token and the update alone.
func TestDryRunRecordsWhatAnUpdateReads(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := linkedFile(t, dir, 50, 0)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0"); code != 0 {
		t.Fatalf("load: %d %s", code, errOut)
	}
	text, _ := os.ReadFile(file)
	changed := filepath.Join(dir, "changed.csv")
	os.WriteFile(changed, []byte(strings.Replace(string(text), "S-00007,element 7,", "S-00007,element 7 renamed,", 1)), 0o600)
	state := filepath.Join(dir, "state.json")
	if code, _, errOut := run(t, srv, "", "apply", "-f", changed, "--state", state, "--dry-run", "--rate", "0"); code != 0 {
		t.Fatalf("dry run: %d %s", code, errOut)
	}
	srv.ResetStats()
	if code, _, errOut := run(t, srv, "", "apply", "-f", changed, "--state", state, "--verify-budget", "0", "--rate", "0"); code != 0 {
		t.Fatalf("apply: %d %s", code, errOut)
	}
	if got := requests(srv); got != 3 || writes(srv) != 1 {
		t.Fatalf("the apply after the dry run cost %d requests, %d writes; want 3 (token, list, update) and 1", got, writes(srv))
	}
}

// A saved plan names the state its dry run left: apply --plan refuses it
// (exit 8, nothing sent) once another apply has written that state since,
// even one that changed nothing; a dry run meanwhile changes nothing and
// is not counted; a state of another lineage says nothing of the plan,
// whatever it counts.
func TestSavedPlanRefusedOnceItsStateMoved(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file, changed, again := linkedFile(t, dir, 10, 0), linkedFile(t, dir, 10, 2), linkedFile(t, dir, 10, 4)
	state, other := filepath.Join(dir, "state.json"), filepath.Join(dir, "other.json")
	apply := func(args ...string) {
		t.Helper()
		if code, _, errOut := run(t, srv, "", append(append([]string{"apply"}, args...), "--rate", "0")...); code != 0 && code != cmdutil.ExitPending {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	for range 3 { // another lineage, with more applies
		apply("-f", file, "--state", other)
	}
	apply("-f", file, "--state", state)

	first := filepath.Join(dir, "first.plan")
	apply("-f", changed, "--state", state, "--dry-run", "--out", first)
	apply("-f", file, "--state", state, "--dry-run")
	srv.ResetStats()
	apply("--plan", first, "--state", state)
	if writes(srv) == 0 {
		t.Fatal("a plan with only a dry run since was not carried out")
	}

	second := filepath.Join(dir, "second.plan")
	apply("-f", again, "--state", state, "--dry-run", "--out", second)
	apply("-f", changed, "--state", state) // changes nothing, but applies
	srv.ResetStats()
	code, _, errOut := run(t, srv, "", "apply", "--plan", second, "--state", state, "--rate", "0")
	if code != cmdutil.ExitPlanStale || !strings.Contains(errOut, "another apply wrote the state since") || writes(srv) != 0 {
		t.Fatalf("a plan whose state another apply wrote: exit %d, %d writes: %s", code, writes(srv), errOut)
	}
	apply("--plan", second, "--state", other)
	if writes(srv) == 0 {
		t.Fatal("with a state of another lineage, the plan was not carried out")
	}
}

// A state filled by apply --plan records when every link it holds was
// verified, those of the elements it created among them: the next plan
// names the oldest by its age.
func TestAppliedPlanRecordsWhenLinksWereVerified(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := linkedFile(t, dir, 20, 0)
	state, saved := filepath.Join(dir, "state.json"), filepath.Join(dir, "wbs.plan")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--out", saved, "--rate", "0"); code != 0 {
		t.Fatalf("plan: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, srv, "", "apply", "--plan", saved, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("apply --plan: %d %s", code, errOut)
	}
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--rate", "0")
	if code != 0 || !strings.Contains(errOut, "links verified this run: 1 of 20; oldest verification: ") || strings.Contains(errOut, "not recorded") {
		t.Fatalf("the next plan: exit %d: %s", code, errOut)
	}
}
