package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func testClient(t *testing.T, srv *wbstest.Server) *sdk.Client {
	t.Helper()
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret),
		sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 10, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxRetryAfter: time.Millisecond}), sdk.WithServerErrorRetries())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// records makes n records with one or two organizations each.
func records(n int) []wbsfile.Record {
	recs := make([]wbsfile.Record, n)
	for i := range recs {
		d := fmt.Sprintf("Element %d", i)
		orgs := []sdk.BusinessOrganization{{Code: fmt.Sprint(1000 + i%7), EntityType: "company"}}
		if i%3 == 0 {
			orgs = append(orgs, sdk.BusinessOrganization{Code: fmt.Sprintf("B%d", i%11), EntityType: "branch"})
		}
		recs[i] = wbsfile.Record{Line: int32(i + 2), Code: fmt.Sprintf("P-%05d", i), Texts: wbsfile.Texts{Description: &d}, IsActive: sdk.Ptr(i%5 != 0), Organizations: orgs, OrganizationsSet: true}
	}
	return recs
}

func converge(t *testing.T, c *sdk.Client, recs []wbsfile.Record, prune bool) (*Results, *Plan) {
	t.Helper()
	ctx := context.Background()
	decided := Prune{Requested: prune}.decide(&wbsfile.File{}, nil)
	plan, err := buildPlan(ctx, c, recs, PlanOptions{prune: decided})
	if err != nil {
		t.Fatal(err)
	}
	if err := decided.confirm(plan, func(int) (bool, error) { return true, nil }); err != nil {
		t.Fatal(err)
	}
	results := execute(ctx, c, plan, executeOptions{prune: decided})
	for _, r := range results.All() {
		if r.Status != StatusOK {
			t.Fatalf("record %s: %+v", r.Code, r)
		}
	}
	return results, plan
}

// assertState checks that the server holds exactly the records.
func assertState(t *testing.T, srv *wbstest.Server, recs []wbsfile.Record) {
	t.Helper()
	els := srv.Elements()
	if len(els) != len(recs) {
		t.Fatalf("server holds %d elements, want %d", len(els), len(recs))
	}
	byCode := map[string]wbstest.Element{}
	for _, e := range els {
		byCode[e.Code] = e
	}
	for _, r := range recs {
		e, ok := byCode[r.Code]
		if !ok {
			t.Fatalf("%s missing", r.Code)
		}
		if deref(e.Description) != deref(r.Description) || e.IsActive != (r.IsActive == nil || *r.IsActive) {
			t.Fatalf("%s: %+v, want %+v", r.Code, e, r)
		}
		var got, want []string
		for _, o := range e.BusinessOrganizations {
			got = append(got, o.EntityType+"="+o.Code)
		}
		for _, o := range r.Organizations {
			want = append(want, o.EntityType+"="+o.Code)
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ";") != strings.Join(want, ";") {
			t.Fatalf("%s: links %v, want %v", r.Code, got, want)
		}
	}
}

func writes(st wbstest.Stats) int {
	return st.Requests[wbstest.OpCreate] + st.Requests[wbstest.OpUpdate] + st.Requests[wbstest.OpDelete] + st.Requests[wbstest.OpDeleteLinks]
}

func TestLoadRerunAndChangesForBothLinkModes(t *testing.T) {
	for _, mode := range []wbstest.OrgUpdateMode{wbstest.OrgMerge, wbstest.OrgReplace} {
		t.Run(fmt.Sprint("mode ", mode), func(t *testing.T) {
			srv := wbstest.NewServer(wbstest.WithOrgUpdateMode(mode))
			defer srv.Close()
			c := testClient(t, srv)
			recs := records(2000)
			converge(t, c, recs, false)
			if got := srv.Stats().Requests[wbstest.OpCreate]; got != 2000 {
				t.Fatalf("%d creates for 2,000 new elements, want 2000 (links inlined)", got)
			}
			assertState(t, srv, recs)

			srv.ResetStats()
			_, plan := converge(t, c, recs, false)
			st := srv.Stats()
			if writes(st) != 0 || plan.Pending() {
				t.Fatalf("the same file again wrote %d times", writes(st))
			}
			if st.Requests[wbstest.OpList] != 20 {
				t.Fatalf("%d list pages for 2,000 elements, want 20 at 100 a page", st.Requests[wbstest.OpList])
			}

			// 100 changes: 25 descriptions, 25 flags, 25 added links,
			// 25 links swapped for others.
			changed := append([]wbsfile.Record(nil), recs...)
			want := 0
			for i := 0; i < 100; i++ {
				r := &changed[i*20]
				r.Organizations = append([]sdk.BusinessOrganization(nil), r.Organizations...)
				switch i % 4 {
				case 0:
					d := "changed"
					r.Description = &d
					want++
				case 1:
					r.IsActive = sdk.Ptr(!*r.IsActive)
					want++
				case 2:
					r.Organizations = append(r.Organizations, sdk.BusinessOrganization{Code: "NEW", EntityType: "department"})
					want++ // one update with the whole set
				case 3:
					r.Organizations = []sdk.BusinessOrganization{{Code: "X", EntityType: "company"}}
					want += 2 // remove the old links, then set the new one
				}
			}
			srv.ResetStats()
			_, plan = converge(t, c, changed, false)
			if got := plan.Counts()[ActionUpdate]; got != 100 {
				t.Fatalf("plan updates %d elements, want 100", got)
			}
			if got := writes(srv.Stats()); got != want {
				t.Fatalf("%d writes for 100 changes, want %d", got, want)
			}
			assertState(t, srv, changed)
		})
	}
}

func TestPruneDeletesOnlyWhatTheFileDoesNotName(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	srv.Put(wbstest.Element{Code: "OLD", IsActive: true})
	c := testClient(t, srv)
	recs := records(5)
	converge(t, c, recs, true)
	assertState(t, srv, recs)
}

func TestLoadSurvivesFaults(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithSeed(42), wbstest.WithFaults(
		wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 500, Probability: 0.025},
		wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 502, Probability: 0.025},
		wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 503, Probability: 0.025},
		wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 504, Probability: 0.025},
		wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 429, RetryAfter: time.Second, Probability: 0.05},
		wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultReset, Probability: 0.02},
		wbstest.FaultRule{Operation: wbstest.OpUpdate, Kind: wbstest.FaultReset, Probability: 0.02},
		wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultDropAfterCommit, Probability: 0.02},
		wbstest.FaultRule{Operation: wbstest.OpUpdate, Kind: wbstest.FaultDropAfterCommit, Probability: 0.02},
	))
	defer srv.Close()
	c := testClient(t, srv)
	recs := records(2000)
	converge(t, c, recs, false) // fails the test on any record not ok
	assertState(t, srv, recs)
	st := srv.Stats()
	if st.Creates != 2000 {
		t.Fatalf("%d creates stored for 2,000 elements: a duplicate or a loss", st.Creates)
	}
	total := 0
	for _, n := range st.Faults {
		total += n
	}
	t.Logf("faults injected: %v (%d in all), requests: %v", st.Faults, total, st.Requests)
	if st.Faults[wbstest.FaultDropAfterCommit] == 0 || st.Faults[wbstest.FaultReset] == 0 || st.Faults[wbstest.FaultStatus] == 0 {
		t.Fatal("a fault kind never fired")
	}
	// A second run with faults converges to nothing to do.
	changed := append([]wbsfile.Record(nil), recs...)
	for i := 0; i < 200; i++ {
		d := "changed under faults"
		changed[i*10].Description = &d
	}
	converge(t, c, changed, false)
	assertState(t, srv, changed)
}

// A run stopped after 50 of 200 creates makes the changes it started and
// no more, and leaves a state of exactly what it made; the next run with
// the state creates only the rest, once each, and reads no links of what
// the first made.
func TestInterruptedRunFinishesOnTheNextRun(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := testClient(t, srv)
	recs := records(200)
	file := &wbsfile.File{Records: recs}
	state := filepath.Join(t.TempDir(), "state.json")
	ctx := context.Background()
	stop, signal := context.WithCancelCause(ctx)
	var finished atomic.Int64
	out, err := Run(ctx, c, Input{File: file, State: statestore.NewFile(state), Stop: stop}, Hooks{OnResult: func(Result) {
		if finished.Add(1) == 50 {
			signal(errors.New("interrupted"))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(out.Results, RequestCounts{})
	created := sum.Actions[ActionCreate][StatusOK]
	if sum.Failed != 0 || sum.Skipped == 0 || created < 50 {
		t.Fatalf("interrupted run: %+v", sum)
	}
	if got := len(srv.Elements()); got != created {
		t.Fatalf("server holds %d, results say %d created", got, created)
	}
	written, err := loadState(context.Background(), statestore.NewFile(state), c.BaseURL(), c.ClientID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(written.Elements) != created {
		t.Fatalf("the state holds %d elements, %d were created", len(written.Elements), created)
	}
	for code := range written.Elements {
		if _, ok := srv.Element(code); !ok {
			t.Fatalf("the state holds %s, which the run did not create", code)
		}
	}

	srv.ResetStats()
	out, err = Run(ctx, c, Input{File: file, State: statestore.NewFile(state)}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Plan.Counts()[ActionCreate]; got != 200-created {
		t.Fatalf("the second run planned %d creates, want only the %d not done", got, 200-created)
	}
	// The links of what was created are trusted, but for the verify
	// budget's share of them.
	if st := srv.Stats(); st.Creates != 200-created || st.Requests[wbstest.OpListLinks] != (VerifyBudget{}).of(created) {
		t.Fatalf("the second run: %d creates, %d link reads, want %d", st.Creates, st.Requests[wbstest.OpListLinks], (VerifyBudget{}).of(created))
	}
	assertState(t, srv, recs)
}

// A create that fails before it is sent, because the renewal of a
// rejected token got a 500, is sent again like an update would be: the
// record succeeds and the element is created once.
func TestCreateSentAgainWhenTheTokenRenewalFails(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithFaults(
		wbstest.FaultRule{Operation: wbstest.OpToken, Kind: wbstest.FaultStatus, Status: 500, Nth: 2}))
	defer srv.Close()
	c := testClient(t, srv)
	ctx := context.Background()
	recs := records(1)
	plan, err := buildPlan(ctx, c, recs, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv.ExpireTokens() // the create's token is rejected and renewed
	results := execute(ctx, c, plan, executeOptions{})
	if r := results.At(0); r.Status != StatusOK {
		t.Fatalf("create failed: %+v", r)
	}
	if st := srv.Stats(); st.Creates != 1 || st.Faults[wbstest.FaultStatus] != 1 {
		t.Fatalf("creates %d, faults %v", st.Creates, st.Faults)
	}
	assertState(t, srv, recs)
}

// A create whose outcome is unknown is settled by the read-back, never
// sent again blindly: a 500 that did not act leads to one more create,
// a lost answer of a create that acted to none.
func TestUnknownCreateIsReadBackNotResent(t *testing.T) {
	for _, tc := range []struct {
		name        string
		fault       wbstest.FaultRule
		wantCreates int // create requests
		wantNote    string
	}{
		{"500", wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultStatus, Status: 500, Nth: 1}, 2, "created again"},
		{"drop after commit", wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultDropAfterCommit, Nth: 1}, 1, "found created"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := wbstest.NewServer(wbstest.WithFaults(tc.fault))
			defer srv.Close()
			recs := records(1)
			results, _ := converge(t, testClient(t, srv), recs, false)
			st := srv.Stats()
			if st.Requests[wbstest.OpCreate] != tc.wantCreates || st.Creates != 1 || !strings.Contains(results.At(0).Note, tc.wantNote) {
				t.Fatalf("%d create requests (want %d), %d stored, note %q", st.Requests[wbstest.OpCreate], tc.wantCreates, st.Creates, results.At(0).Note)
			}
			assertState(t, srv, recs)
		})
	}
}

// A storm of 503s gets exactly the attempts the retry policy allows per
// call, no more: apply adds no retry loop of its own.
func TestServerErrorStormGetsThePolicysAttempts(t *testing.T) {
	for _, status := range []int{500, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := wbstest.NewServer()
			defer srv.Close()
			srv.Put(wbstest.Element{Code: "P-00000", IsActive: true})
			c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret),
				sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}),
				sdk.WithServerErrorRetries())
			if err != nil {
				t.Fatal(err)
			}
			recs := records(1)
			d := "changed"
			recs[0].Description = &d
			plan, err := buildPlan(context.Background(), c, recs, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			srv.AddFaults(wbstest.FaultRule{Operation: wbstest.OpUpdate, Kind: wbstest.FaultStatus, Status: status})
			srv.ResetStats()
			results := execute(context.Background(), c, plan, executeOptions{})
			if r := results.At(0); r.Status != StatusFailed {
				t.Fatalf("result %+v, want failed", r)
			}
			if got := srv.Stats().Requests[wbstest.OpUpdate]; got != 5 {
				t.Fatalf("%d attempts of the update, want the policy's 5", got)
			}
		})
	}
}

// A result done as planned is kept as its status, its correlation id only
// for a report; a failure keeps all the platform said, and every result
// reads back as a whole Result.
func TestResultsKeepWhatIsNeeded(t *testing.T) {
	ctx := context.Background()
	for _, keep := range []bool{false, true} {
		srv := wbstest.NewServer()
		defer srv.Close()
		srv.Put(wbstest.Element{Code: "OLD", IsActive: true}, wbstest.Element{Code: "U-1", IsActive: true})
		c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		d := "changed"
		recs := []wbsfile.Record{{Line: 2, Code: "A-1"}, {Line: 3, Code: "U-1", Texts: wbsfile.Texts{Description: &d}}, {Line: 4, Code: "OLD", IsActive: sdk.Ptr(true)}}
		plan, err := buildPlan(ctx, c, recs, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		srv.AddFaults(wbstest.FaultRule{Operation: wbstest.OpUpdate, Kind: wbstest.FaultStatus, Status: 500})
		results := execute(ctx, c, plan, executeOptions{KeepCorrelationIDs: keep})
		byCode := map[string]Result{}
		for _, r := range results.All() {
			byCode[r.Code] = r
		}
		if r := byCode["A-1"]; r.Status != StatusOK || r.Line != 2 || r.Action != ActionCreate || (r.CorrelationID != "") != keep {
			t.Errorf("keep %v: A-1 %+v", keep, r)
		}
		if r := byCode["U-1"]; r.Status != StatusFailed || r.HTTPStatus != 500 || r.Detail == "" || r.Line != 3 {
			t.Errorf("keep %v: U-1 %+v", keep, r)
		}
		if r := byCode["OLD"]; r.Status != StatusOK || r.Action != ActionUnchanged {
			t.Errorf("keep %v: OLD %+v", keep, r)
		}
		results.Add(Result{Line: 9, Code: "BAD", Action: ActionCreate, Status: StatusInvalid})
		if s := Summarize(results, RequestCounts{}); s.Actions[ActionCreate][StatusOK] != 1 || s.Failed != 1 || s.Invalid != 1 || results.Len() != 4 {
			t.Errorf("keep %v: %+v", keep, s)
		}
	}
}
