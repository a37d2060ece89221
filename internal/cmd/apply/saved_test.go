package apply_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// savePlan makes the plan of planServer's file with --prune and saves it.
func savePlan(t *testing.T) (*wbstest.Server, string) {
	srv, file := planServer(t)
	plan := filepath.Join(t.TempDir(), "nightly.plan")
	code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--prune", "--out", plan, "--rate", "0")
	if code != 0 || !strings.Contains(errOut, "wbsctl apply --plan "+plan) {
		t.Fatalf("saving the plan: exit %d: %s", code, errOut)
	}
	return srv, plan
}

// A saved plan is carried out exactly: its steps and nothing else.
func TestSavedPlanIsAppliedExactly(t *testing.T) {
	srv, plan := savePlan(t)
	b, _ := os.ReadFile(plan)
	if strings.Contains(string(b), srv.ClientSecret) || strings.Contains(string(b), "accessToken") || strings.Contains(string(b), "eyJ") {
		t.Fatalf("the plan file holds a secret or a token:\n%s", b)
	}
	// An element outside the plan's steps goes away: not the plan's
	// business, and the plan does not bring it back.
	srv.Put(wbstest.Element{Code: "A-3"})
	srv.ResetStats()
	code, _, errOut := run(t, srv, "", "apply", "--plan", plan, "--rate", "0")
	if code != 0 {
		t.Fatalf("apply --plan: exit %d: %s", code, errOut)
	}
	a1, _ := srv.Element("A-1")
	if *a1.Description != "one changed" || a1.IsActive || len(a1.BusinessOrganizations) != 2 || a1.BusinessOrganizations[1].Code != "B2" {
		t.Fatalf("A-1: %+v", a1)
	}
	if _, ok := srv.Element("N-1"); !ok {
		t.Fatal("N-1 not created")
	}
	if _, ok := srv.Element("OLD"); ok {
		t.Fatal("OLD not deleted")
	}
	if _, ok := srv.Element("A-3"); !ok {
		t.Fatal("A-3, no step of the plan, was deleted")
	}
	st := srv.Stats().Requests
	if st[wbstest.OpListLinks] != 1 || st[wbstest.OpCreate] != 1 || st[wbstest.OpDelete] != 1 {
		t.Fatalf("requests %v: want one links read (A-1's), one create, one delete", st)
	}
}

// A platform that moved since the plan was made gets nothing, and the
// elements that moved are named; for every kind of step.
func TestStaleSavedPlanIsRefused(t *testing.T) {
	for name, move := range map[string]func(*wbstest.Server){
		"create": func(s *wbstest.Server) { s.Put(wbstest.Element{Code: "N-1"}) },
		"update": func(s *wbstest.Server) { el, _ := s.Element("A-1"); d := "other"; el.Description = &d; s.Put(el) },
		"update links": func(s *wbstest.Server) {
			el, _ := s.Element("A-1")
			el.BusinessOrganizations = el.BusinessOrganizations[:1]
			s.Put(el)
		},
		"delete": func(s *wbstest.Server) { el, _ := s.Element("OLD"); el.IsActive = false; s.Put(el) },
	} {
		t.Run(name, func(t *testing.T) {
			srv, plan := savePlan(t)
			move(srv)
			srv.ResetStats()
			code, _, errOut := run(t, srv, "", "apply", "--plan", plan, "--rate", "0")
			if code != cmdutil.ExitPlanStale || !strings.Contains(errOut, "nothing was sent") {
				t.Fatalf("exit %d, want %d: %s", code, cmdutil.ExitPlanStale, errOut)
			}
			moved := map[string]string{"create": "N-1", "update": "A-1", "update links": "A-1", "delete": "OLD"}[name]
			if !strings.Contains(errOut, moved) || writes(srv) != 0 {
				t.Fatalf("%s not named, or %d writes: %s", moved, writes(srv), errOut)
			}
		})
	}
}

func TestSavedPlanOfAnotherPlatformIsRefused(t *testing.T) {
	srv, plan := savePlan(t)
	b, _ := os.ReadFile(plan)
	for name, edit := range map[string]func(string) string{
		"platform":  func(s string) string { return strings.Replace(s, srv.URL, "https://other.example", 1) },
		"client id": func(s string) string { return strings.Replace(s, srv.ClientID, "integrationhub-other", 1) },
		"damaged":   func(s string) string { return s[:len(s)/2] },
	} {
		other := filepath.Join(t.TempDir(), "other.plan")
		os.WriteFile(other, []byte(edit(string(b))), 0o600)
		srv.ResetStats()
		code, _, errOut := run(t, srv, "", "apply", "--plan", other, "--rate", "0")
		if code != cmdutil.ExitUsage || writes(srv) != 0 || !strings.Contains(errOut, "saved plan cannot be used") {
			t.Errorf("%s: exit %d: %s", name, code, errOut)
		}
	}
	for _, args := range [][]string{{"--plan", plan, "-f", "x.csv"}, {"--plan", plan, "--prune"}, {"-f", "x.csv", "--out", plan}} {
		if code, _, _ := run(t, srv, "", append([]string{"apply"}, args...)...); code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, cmdutil.ExitUsage)
		}
	}
}

// A plan all of whose creates moved names the first ten in code order and
// counts the rest, in an error a reader can take in.
func TestStaleSavedPlanNamesTheFirstTen(t *testing.T) {
	srv := wbstest.Start(t)
	var csv strings.Builder
	csv.WriteString("wbsElementCode,description,isActive\n")
	for i := range 25 {
		fmt.Fprintf(&csv, "N-%02d,new,true\n", 24-i)
	}
	file := filepath.Join(t.TempDir(), "new.csv")
	os.WriteFile(file, []byte(csv.String()), 0o600)
	plan := filepath.Join(t.TempDir(), "new.plan")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
		t.Fatalf("saving the plan: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0", "--quiet"); code != 0 {
		t.Fatalf("applying the file: exit %d: %s", code, errOut)
	}
	srv.ResetStats()
	code, _, errOut := run(t, srv, "", "apply", "--plan", plan, "--rate", "0")
	want := "25 elements moved: N-00 (now exists), N-01 (now exists), N-02 (now exists), N-03 (now exists), N-04 (now exists), " +
		"N-05 (now exists), N-06 (now exists), N-07 (now exists), N-08 (now exists), N-09 (now exists) and 15 more; nothing was sent"
	if code != cmdutil.ExitPlanStale || !strings.Contains(errOut, want) || writes(srv) != 0 {
		t.Fatalf("exit %d, %d writes:\n%s\nwant it to say: %s", code, writes(srv), errOut, want)
	}
}

// A plan made with --state trusts the links the state recorded where the
// file states the same, and so does apply --plan: it does not read them
// again, nor call the plan stale when the platform's differ (a link
// removed by hand since the state was written), as apply -f --state
// would not. Making the plan again would trust them again: a refusal
// there could not be got past.
func TestSavedPlanTrustsTheStateAsItsPlanDid(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "apply.state")
	first := cmdtest.WriteFile(t, dir, "a.csv", "wbsElementCode,description,businessOrganizations\nT-1,one,company=1000;branch=B1\n")
	if code, _, errOut := run(t, srv, "", "apply", "-f", first, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, errOut)
	}
	// A link removed on the platform by hand: the state still records it.
	el, _ := srv.Element("T-1")
	el.BusinessOrganizations = el.BusinessOrganizations[:1]
	srv.Put(el)
	second := cmdtest.WriteFile(t, dir, "b.csv", "wbsElementCode,description,businessOrganizations\nT-1,two,company=1000;branch=B1\n")
	plan := filepath.Join(dir, "t.plan")
	// The state trusted as it is: a budget of 0 reads no link again.
	if code, _, errOut := run(t, srv, "", "apply", "-f", second, "--state", state, "--verify-budget", "0", "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
		t.Fatalf("the plan: exit %d: %s", code, errOut)
	}
	srv.ResetStats()
	code, _, errOut := run(t, srv, "", "apply", "--plan", plan, "--state", state, "--rate", "0")
	if code != 0 {
		t.Fatalf("apply --plan: exit %d: %s", code, errOut)
	}
	el, _ = srv.Element("T-1")
	if *el.Description != "two" || len(el.BusinessOrganizations) != 1 {
		t.Fatalf("T-1: %+v, want the description changed and the links left as the state trusts them", el)
	}
	if n := srv.Stats().Requests[wbstest.OpListLinks]; n != 0 {
		t.Fatalf("%d reads of links: the trusted links were read again", n)
	}
}

// A plan's linksFromState is trusted only with a state that still holds
// those links: carried out without the state, or edited by hand to claim
// links it read, the plan has them read again and called stale when the
// platform's differ.
func TestSavedPlanTrustsOnlyAStateThatHoldsTheLinks(t *testing.T) {
	stale := func(t *testing.T, srv *wbstest.Server, args ...string) {
		t.Helper()
		srv.ResetStats()
		code, _, errOut := run(t, srv, "", append([]string{"apply"}, args...)...)
		if code != cmdutil.ExitPlanStale || !strings.Contains(errOut, "T-1 (its links changed)") {
			t.Fatalf("apply %v: exit %d, want %d for T-1's links: %s", args, code, cmdutil.ExitPlanStale, errOut)
		}
		if n := srv.Stats().Requests[wbstest.OpListLinks]; n != 1 {
			t.Fatalf("%d reads of links, want T-1's read", n)
		}
		if el, _ := srv.Element("T-1"); *el.Description != "one" {
			t.Fatalf("T-1 changed: %+v", el)
		}
	}
	setup := func(t *testing.T) (*wbstest.Server, string, string) {
		srv := wbstest.Start(t)
		dir := t.TempDir()
		first := cmdtest.WriteFile(t, dir, "a.csv", "wbsElementCode,description,businessOrganizations\nT-1,one,company=1000;branch=B1\n")
		if code, _, errOut := run(t, srv, "", "apply", "-f", first, "--rate", "0"); code != 0 {
			t.Fatalf("apply: exit %d: %s", code, errOut)
		}
		return srv, dir, cmdtest.WriteFile(t, dir, "b.csv", "wbsElementCode,description,businessOrganizations\nT-1,two,company=1000;branch=B1\n")
	}
	removeALink := func(srv *wbstest.Server) {
		el, _ := srv.Element("T-1")
		el.BusinessOrganizations = el.BusinessOrganizations[:1]
		srv.Put(el)
	}

	// planWithState makes the plan of the second file with a state that
	// recorded T-1's links, which it takes from there, then removes a
	// link by hand.
	planWithState := func(t *testing.T) (srv *wbstest.Server, state, plan string) {
		srv, dir, second := setup(t)
		state, plan = filepath.Join(dir, "apply.state"), filepath.Join(dir, "t.plan")
		if code, _, errOut := run(t, srv, "", "apply", "-f", second, "--state", state, "--dry-run", "--rate", "0"); code != 0 {
			t.Fatalf("filling the state: exit %d: %s", code, errOut)
		}
		if code, _, errOut := run(t, srv, "", "apply", "-f", second, "--state", state, "--verify-budget", "0", "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
			t.Fatalf("the plan: exit %d: %s", code, errOut)
		}
		if b, _ := os.ReadFile(plan); !strings.Contains(string(b), `"linksFromState": true`) {
			t.Fatalf("the plan did not take T-1's links from the state:\n%s", b)
		}
		removeALink(srv)
		return srv, state, plan
	}

	t.Run("made with a state, carried out without it", func(t *testing.T) {
		srv, _, plan := planWithState(t)
		stale(t, srv, "--plan", plan, "--rate", "0")
	})
	t.Run("edited by hand to claim them", func(t *testing.T) {
		srv, dir, second := setup(t)
		plan := filepath.Join(dir, "t.plan")
		if code, _, errOut := run(t, srv, "", "apply", "-f", second, "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
			t.Fatalf("the plan: exit %d: %s", code, errOut)
		}
		removeALink(srv)
		b, _ := os.ReadFile(plan)
		edited := strings.Replace(string(b), `"action": "update",`, `"action": "update", "linksFromState": true,`, 1)
		if edited == string(b) {
			t.Fatalf("no update step to edit:\n%s", b)
		}
		if err := os.WriteFile(plan, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		stale(t, srv, "--plan", plan, "--rate", "0")
		// A state of other links does not back the claim either.
		state := filepath.Join(dir, "apply.state")
		other := cmdtest.WriteFile(t, dir, "c.csv", "wbsElementCode,description,businessOrganizations\nT-1,one,company=1000\n")
		if code, _, errOut := run(t, srv, "", "apply", "-f", other, "--state", state, "--dry-run", "--rate", "0"); code != 0 {
			t.Fatalf("filling the state: exit %d: %s", code, errOut)
		}
		stale(t, srv, "--plan", plan, "--state", state, "--rate", "0")
	})
	t.Run("with a state that records the element otherwise", func(t *testing.T) {
		// The state's entry holds the plan's links, but another
		// description than the platform's: it says nothing of the
		// element as it is, and apply -f --state would read its links.
		srv, state, plan := planWithState(t)
		b, _ := os.ReadFile(state)
		edited := strings.Replace(string(b), `"description":"one"`, `"description":"zero"`, 1)
		if edited == string(b) {
			t.Fatalf("no description to edit in the state:\n%s", b)
		}
		if err := os.WriteFile(state, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		stale(t, srv, "--plan", plan, "--state", state, "--rate", "0")
	})
}

// An element a plan found unchanged by links it took from a state is
// written to a state apply --plan makes anew without those links, where
// that state does not hold them: they were never read, and the next run
// reads them and mends the platform.
func TestSavedPlanLeavesLinksItDidNotReadOutOfANewState(t *testing.T) {
	srv := wbstest.Start(t)
	dir := t.TempDir()
	state, plan := filepath.Join(dir, "apply.state"), filepath.Join(dir, "t.plan")
	file := cmdtest.WriteFile(t, dir, "a.csv", "wbsElementCode,description,businessOrganizations\nT-1,one,company=1000;branch=B1\n")
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--rate", "0"); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, errOut)
	}
	el, _ := srv.Element("T-1")
	el.BusinessOrganizations = el.BusinessOrganizations[:1] // removed by hand
	srv.Put(el)
	// The state trusted whole: a budget of 0 reads no link again.
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--verify-budget", "0", "--dry-run", "--out", plan, "--rate", "0"); code != 0 {
		t.Fatalf("the plan: exit %d: %s", code, errOut)
	}
	fresh := filepath.Join(dir, "fresh.state")
	if code, _, errOut := run(t, srv, "", "apply", "--plan", plan, "--state", fresh, "--refresh", "--rate", "0"); code != 0 {
		t.Fatalf("apply --plan --refresh: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--state", fresh, "--verify-budget", "0", "--rate", "0"); code != 0 {
		t.Fatalf("apply with the new state: exit %d: %s", code, errOut)
	}
	if el, _ := srv.Element("T-1"); len(el.BusinessOrganizations) != 2 {
		t.Fatalf("T-1 holds %v: the new state trusted links nobody read", el.BusinessOrganizations)
	}
}

// A stale plan's next step is a plan of the newest commit, said the way
// each CI makes one: never a re-run of the job that was refused, which
// carries out (GitHub) or plans (GitLab) what an older commit said.
func TestStalePlanNamesTheNextStepOfEachCI(t *testing.T) {
	for ci, want := range map[string]struct {
		env       map[string]string
		says, not string
	}{
		"github": {map[string]string{"GITHUB_ACTIONS": "true"}, `::error title=wbsctl apply%3A the plan is stale (exit 8)::`, "next:"},
		"gitlab": {map[string]string{"GITLAB_CI": "true"}, "next: Nothing was sent. Make the plan again, review it, and apply that plan: run a new pipeline for the default branch", "::error"},
		"none":   {nil, "next: Nothing was sent. Make the plan again, review it, and apply that plan: run the plan from the newest file again", "::error"},
	} {
		t.Run(ci, func(t *testing.T) {
			srv, plan := savePlan(t)
			el, _ := srv.Element("A-1")
			el.Description = new("hand change")
			srv.Put(el)
			res := cmdtest.Run{Env: want.env}.Do(t, srv, "apply", "--plan", plan, "--rate", "0")
			if res.Code != cmdutil.ExitPlanStale || !strings.Contains(res.ErrOut, want.says) || strings.Contains(res.ErrOut, want.not) {
				t.Fatalf("exit %d: %s\nwant it to say %q", res.Code, res.ErrOut, want.says)
			}
			if ci == "github" && !strings.Contains(res.ErrOut, "Run workflow") {
				t.Fatalf("the annotation does not name Run workflow: %s", res.ErrOut)
			}
		})
	}
}
