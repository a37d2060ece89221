package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/statestore/s3test"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// The state written after begin and finish holds, in code order, the
// elements the plan does not name as they were, and those it names as the
// plan and its results leave them.
func TestStateWritesPlanAndResults(t *testing.T) {
	desc := func(s string) *string { return &s }
	links := []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}}
	st := newState("u", "c")
	st.Lineage = "l"
	for _, code := range []string{"A", "C", "D", "F", "G"} {
		st.Elements[code] = &State{Texts: wbsfile.Texts{Description: desc("old " + code)}, IsActive: true, BusinessOrganizations: links}
	}
	recs := []wbsfile.Record{
		{Line: 2, Code: "E", Texts: wbsfile.Texts{Description: desc("new E")}, Organizations: links, OrganizationsSet: true},
		{Line: 3, Code: "C"},
		{Line: 4, Code: "B", Texts: wbsfile.Texts{Description: desc("new B")}},
		{Line: 5, Code: "D", Texts: wbsfile.Texts{Description: desc("changed D")}},
	}
	same := &State{Texts: wbsfile.Texts{Description: desc("old C")}, IsActive: true, BusinessOrganizations: links}
	plan := &Plan{Changes: []Change{
		{Action: ActionCreate, Line: 2, Code: "E", record: &recs[0]},
		{Action: ActionUnchanged, Line: 3, Code: "C", record: &recs[1], before: same, after: same},
		{Action: ActionCreate, Line: 4, Code: "B", record: &recs[2]},
		{Action: ActionUpdate, Line: 5, Code: "D", record: &recs[3], Fields: TextFieldSet(wbsfile.TextFields[0]),
			before: &State{Texts: wbsfile.Texts{Description: desc("old D")}, IsActive: true}, after: &State{Texts: wbsfile.Texts{Description: desc("changed D")}, IsActive: true}},
		{Action: ActionDelete, Code: "G", before: &State{IsActive: true}},
	}}
	path := filepath.Join(t.TempDir(), "state.json")
	saved := func() string {
		t.Helper()
		if err := st.save(context.Background(), statestore.NewFile(path)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	head := func(serial int) string {
		return fmt.Sprintf(`{"formatVersion":1,"baseUrl":"u","clientId":"c","lineage":"l","serial":%d,"elements":{`, serial)
	}
	org := `"businessOrganizations":[{"code":"1000","entityType":"company"}]`

	st.begin(plan)
	// Before any write: what is about to change has no entry.
	want := head(1) + `"A":{"description":"old A","isActive":true,` + org + `},` +
		`"C":{"description":"old C","isActive":true,` + org + `},` +
		`"F":{"description":"old F","isActive":true,` + org + `}}}` + "\n"
	if got := saved(); got != want {
		t.Errorf("after Begin:\n got %s\nwant %s", got, want)
	}

	// E and G done, B failed, D not started.
	rs := newResults(plan)
	rs.setStatus(0, StatusOK)
	rs.setStatus(1, StatusOK)
	rs.setStatus(2, StatusFailed)
	rs.setStatus(4, StatusOK)
	st.finish(rs)
	want = head(2) + `"A":{"description":"old A","isActive":true,` + org + `},` +
		`"C":{"description":"old C","isActive":true,` + org + `},` +
		`"E":{"description":"new E","isActive":true,` + org + `},` +
		`"F":{"description":"old F","isActive":true,` + org + `}}}` + "\n"
	if got := saved(); got != want {
		t.Errorf("after Finish:\n got %s\nwant %s", got, want)
	}
	back, err := loadState(context.Background(), statestore.NewFile(path), "u", "c", nil)
	if err != nil || len(back.Elements) != 4 || *back.Elements["E"].Description != "new E" {
		t.Errorf("read back: %v, %v", back, err)
	}
}

// A re-apply with a state reads the links of only the elements whose
// state names other links than their record, or none; an element that
// holds just what its record states is planned without a state of its
// own, and shown, saved and written back all the same.
func TestKnownSparesLinkReads(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := testClient(t, srv)
	recs := records(6)
	converge(t, c, recs, false)

	entry := func(r *wbsfile.Record, links []sdk.BusinessOrganization) string {
		b, err := json.Marshal(State{Texts: wbsfile.Texts{Description: r.Description}, IsActive: *r.IsActive, BusinessOrganizations: links})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	reversed := slices.Clone(recs[3].Organizations)
	slices.Reverse(reversed)
	file := `{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{` +
		`"P-00000":` + entry(&recs[0], recs[0].Organizations) + `,` + // the record's state
		`"P-00002":` + entry(&recs[2], []sdk.BusinessOrganization{{Code: "9", EntityType: "plant"}}) + `,` + // other links
		`"P-00003":` + entry(&recs[3], reversed) + `,` + // the same links, in another order
		`"Z-OLD":{"description":null,"isActive":false,"businessOrganizations":[]}}}`
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := loadState(context.Background(), statestore.NewFile(path), "u", "c", recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Elements) != 1 || st.Elements["Z-OLD"] == nil {
		t.Errorf("held apart from the records: %v, want Z-OLD alone", slices.Collect(maps.Keys(st.Elements)))
	}

	srv.ResetStats()
	plan, err := buildPlan(context.Background(), c, recs, PlanOptions{known: st.known})
	if err != nil {
		t.Fatal(err)
	}
	// P-00001, 2, 4 and 5: no entry or other links.
	if got := srv.Stats().Requests[wbstest.OpListLinks]; got != 4 {
		t.Errorf("%d link reads, want 4", got)
	}
	for i, ch := range plan.Changes {
		want := recordState(&recs[i], nil)
		if ch.Action != ActionUnchanged || !sameState(ch.Held(), want) || !sameState(ch.Desired(), want) {
			t.Errorf("%s: %s, held %+v, desired %+v, want unchanged %+v", ch.Code, ch.Action, ch.Held(), ch.Desired(), want)
		}
	}
	if ch := plan.Changes[0]; ch.before != nil || ch.after != nil {
		t.Errorf("P-00000 holds its states: %+v", ch)
	}
	if ch := plan.Changes[3]; ch.before == nil || !slices.Equal(ch.before.BusinessOrganizations, reversed) {
		t.Errorf("P-00003 holds %+v, want the state's entry", ch.before)
	}
	for ch := range plan.Shown(true) {
		if ch.Before == nil || ch.After == nil || ch.Before.BusinessOrganizations == nil {
			t.Errorf("shown: %s before %+v after %+v", ch.Code, ch.Before, ch.After)
		}
	}

	st.begin(plan)
	if err := st.save(context.Background(), statestore.NewFile(path)); err != nil {
		t.Fatal(err)
	}
	back, err := loadState(context.Background(), statestore.NewFile(path), "u", "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Elements) != 7 {
		t.Errorf("written back: %d entries, want 7", len(back.Elements))
	}
	for i := range recs {
		if el := back.Elements[recs[i].Code]; !sameState(el, recordState(&recs[i], nil)) {
			t.Errorf("written back %s: %+v", recs[i].Code, el)
		}
	}
}

// A run writes over only the state it read: one put in its place
// meanwhile (an older one restored from a CI cache, another lineage) is
// left as it is, and the run says so; where none is left, the run's is
// written. A
// state of an earlier wbsctl, with no lineage, is written over and gets
// one.
func TestStateNeverWritesOverAnother(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	older := `{"formatVersion":1,"baseUrl":"u","clientId":"c","elements":{}}`
	os.WriteFile(path, []byte(older), 0o600)
	st, err := loadState(context.Background(), statestore.NewFile(path), "u", "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := st.save(context.Background(), statestore.NewFile(path)); err != nil {
			t.Fatalf("writing over the state it read: %v", err)
		}
	}
	if st.Lineage == "" || st.Serial != 3 {
		t.Fatalf("lineage %q serial %d after three writes, want a lineage and 3", st.Lineage, st.Serial)
	}
	behind := fmt.Sprintf(`{"formatVersion":1,"baseUrl":"u","clientId":"c","lineage":%q,"serial":2,"elements":{}}`, st.Lineage)
	for name, other := range map[string]string{
		"an older serial": behind,
		"a newer serial":  strings.Replace(behind, `"serial":2`, `"serial":9`, 1),
		"another lineage": strings.Replace(behind, st.Lineage, "0123", 1),
		"no lineage":      older,
		"damaged":         `{"formatVersion":`,
	} {
		os.WriteFile(path, []byte(other), 0o600)
		err := st.save(context.Background(), statestore.NewFile(path))
		text, _ := os.ReadFile(path)
		if !errors.Is(err, ErrStateMoved) || string(text) != other {
			t.Errorf("%s: %v, and the file holds %q", name, err, text)
		}
	}
	// Where the state is gone, or there was none, the run's is written.
	os.Remove(path)
	if err := st.save(context.Background(), statestore.NewFile(path)); err != nil {
		t.Fatalf("where the state is gone: %v", err)
	}
	fresh := newState("u", "c")
	if err := fresh.save(context.Background(), statestore.NewFile(filepath.Join(dir, "new.json"))); err != nil {
		t.Fatal(err)
	}
}

// A run given a lock timeout waits for another run's lock of the state,
// says once who holds it, and runs as soon as it is released; without a
// timeout it fails at once naming the holder; a wait ends with its
// context.
func TestRunWaitsForTheStatesLock(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := testClient(t, srv)
	state := filepath.Join(t.TempDir(), "state.json")
	other := statestore.NewHolder("apply -f other.csv", "", time.Now())
	lease, err := statestore.NewFile(state).Lock(context.Background(), other, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock := func() { lease.Release(context.Background()) }
	file := &wbsfile.File{Records: records(3)}
	if _, err := Run(context.Background(), c, Input{File: file, State: statestore.NewFile(state)}, Hooks{}); !errors.Is(err, statestore.ErrLocked) || !strings.Contains(err.Error(), other.ID) {
		t.Fatalf("without a timeout: %v, want ErrStateLocked naming %s", err, other.ID)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("the signal"))
	if _, err := Run(ctx, c, Input{File: file, State: statestore.NewFile(state), LockTimeout: time.Hour}, Hooks{}); err == nil || !strings.Contains(err.Error(), "the signal") {
		t.Fatalf("a wait whose context ends: %v", err)
	}
	// The first signal ends the wait, as it ends planning.
	stop, signal := context.WithCancelCause(context.Background())
	_, err = Run(context.Background(), c, Input{File: file, State: statestore.NewFile(state), LockTimeout: time.Hour, Stop: stop},
		Hooks{Waiting: func(string) { signal(errors.New("SIGINT")) }})
	if err == nil || !strings.Contains(err.Error(), "SIGINT while waiting for the state's lock") {
		t.Fatalf("a wait that a signal ends: %v", err)
	}
	var told []string
	out, err := Run(context.Background(), c, Input{File: file, State: statestore.NewFile(state), LockTimeout: time.Hour}, Hooks{Waiting: func(holder string) {
		told = append(told, holder)
		unlock()
	}})
	if err != nil || Summarize(out.Results, RequestCounts{}).Failed != 0 || len(srv.Elements()) != 3 {
		t.Fatalf("after the wait: %v, %d elements", err, len(srv.Elements()))
	}
	if len(told) != 1 || !strings.Contains(told[0], "apply -f other.csv") {
		t.Fatalf("the wait was told %q, want once, naming the holder", told)
	}
	if h, _ := statestore.NewFile(state).Holder(context.Background()); h != nil {
		t.Fatalf("the run's lock outlived it: %+v", h)
	}
}

// losingStore is a store whose lock's renewals fail from the second on:
// another run broke it.
type losingStore struct {
	statestore.Store
	renewals atomic.Int64
}

func (s *losingStore) Lock(ctx context.Context, h statestore.Holder, stale time.Duration) (statestore.Lease, error) {
	lease, err := s.Store.Lock(ctx, h, stale)
	return losingLease{lease, s}, err
}

type losingLease struct {
	statestore.Lease
	s *losingStore
}

func (l losingLease) Renew(ctx context.Context) error {
	if l.s.renewals.Add(1) > 1 {
		return fmt.Errorf("the lock is another run's now: %w", statestore.ErrLocked)
	}
	return nil
}

// A run whose lock cannot be renewed starts no more changes and says so:
// what it started is made, and the rest is left to the next run.
func TestRunStopsWhenItsLockIsLost(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultLatency, Latency: 5 * time.Millisecond}))
	defer srv.Close()
	c := testClient(t, srv)
	store := &losingStore{Store: statestore.NewFile(filepath.Join(t.TempDir(), "state.json"))}
	out, err := Run(context.Background(), c, Input{File: &wbsfile.File{Records: records(400)}, State: store, renewEvery: 10 * time.Millisecond,
		Plan: PlanOptions{Concurrency: 1}}, Hooks{})
	if !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), "another run's now") {
		t.Fatalf("a lost lock: %v, want ErrLockLost with the renewal's error", err)
	}
	sum := Summarize(out.Results, RequestCounts{})
	if made := len(srv.Elements()); made == 0 || made == 400 || sum.Skipped == 0 {
		t.Fatalf("%d of 400 made, %d skipped: want the run stopped part way", made, sum.Skipped)
	}
}

// A holder whose process was paused past its lease's term (a VM paused,
// a long stop of the world) sends nothing more once it resumes, though
// no renewal failed and no timer has run since: the check made just
// before each request reads the clock. It ends with ErrLockLost, its
// unsent changes skipped, and every element it made is one it reports:
// made, or, for a request in flight as the lock was lost, of an outcome
// unknown.
func TestPausedHolderSendsNothingPastItsTerm(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultLatency, Latency: 2 * time.Millisecond}))
	defer srv.Close()
	c := testClient(t, srv)
	var paused atomic.Int64 // how far the holder's clock jumped
	clock := func() time.Time { return time.Now().Add(time.Duration(paused.Load())) }
	var before atomic.Int64 // elements made when the pause ended
	var results atomic.Int64
	_, store := bucketState(t)
	out, err := Run(context.Background(), c, Input{File: &wbsfile.File{Records: records(200)},
		State: store, renewEvery: time.Hour, clock: clock,
		Plan: PlanOptions{Concurrency: 4}}, Hooks{OnResult: func(Result) {
		if results.Add(1) == 20 {
			before.Store(int64(len(srv.Elements())))
			paused.Store(int64(statestore.LeaseTerm + time.Second))
		}
	}})
	if !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), "not confirmed for 56s") {
		t.Fatalf("a holder paused past its term: %v, want ErrLockLost saying how long it was not confirmed", err)
	}
	// A local state's lock ends only with its process: nobody breaks it,
	// and a run paused as long (a job stopped with ^Z) goes on.
	paused.Store(0)
	results.Store(0)
	fresh := wbstest.NewServer()
	defer fresh.Close()
	local, err := Run(context.Background(), testClient(t, fresh), Input{File: &wbsfile.File{Records: records(50)},
		State: statestore.NewFile(filepath.Join(t.TempDir(), "state.json")), renewEvery: time.Hour, clock: clock},
		Hooks{OnResult: func(Result) {
			if results.Add(1) == 5 {
				paused.Store(int64(statestore.LeaseTerm + time.Second))
			}
		}})
	if err != nil || Summarize(local.Results, RequestCounts{}).Skipped != 0 || len(fresh.Elements()) != 50 {
		t.Fatalf("a run on a local state paused past a term: %v, %d of 50 made", err, len(fresh.Elements()))
	}
	sum := Summarize(out.Results, RequestCounts{})
	made := len(srv.Elements())
	// What was in flight as the pause ended (4 workers) may land; nothing
	// started after it.
	if made > int(before.Load())+4 || sum.Skipped == 0 || sum.Actions[ActionCreate][StatusOK]+sum.Failed < made {
		t.Fatalf("%d elements made, %d when the pause ended; %d reported created, %d skipped", made, before.Load(), sum.Actions[ActionCreate][StatusOK], sum.Skipped)
	}
}

// A bucket that hangs mid-run holds the run no longer than its bounds:
// the first signal stops the writes, the second ends the state's last
// write within saveGrace and the release within its own bound, and the
// run says that the lock was left and the command that releases it.
func TestHungBucketEndsOnTheSecondSignal(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultLatency, Latency: 2 * time.Millisecond}))
	defer srv.Close()
	c := testClient(t, srv)
	bucket, store := bucketState(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop, signal := context.WithCancelCause(context.Background())
	var results atomic.Int64
	var mu sync.Mutex
	var warned []string
	var secondAt time.Time
	type ran struct {
		out *Outcome
		err error
	}
	done := make(chan ran, 1)
	go func() {
		out, err := Run(ctx, c, Input{File: &wbsfile.File{Records: records(200)}, State: store, StateArg: "'s3://states/hung/state'", Stop: stop,
			Plan: PlanOptions{Concurrency: 2}}, Hooks{
			OnResult: func(Result) {
				if results.Add(1) != 10 {
					return
				}
				bucket.Stall()
				signal(errors.New("SIGINT"))
				go func() {
					time.Sleep(50 * time.Millisecond)
					mu.Lock()
					secondAt = time.Now()
					mu.Unlock()
					cancel(errors.New("SIGINT again"))
				}()
			},
			Warn: func(err error) {
				mu.Lock()
				defer mu.Unlock()
				warned = append(warned, err.Error())
			},
		})
		done <- ran{out, err}
	}()
	// The test's own bound: a run held by the hung bucket would end only
	// with the state write's whole bound, minutes later.
	var r ran
	select {
	case r = <-done:
	case <-time.After(saveGrace + 25*time.Second):
		t.Fatalf("the run had not ended %s after its start, on a hung bucket", saveGrace+25*time.Second)
	}
	out, err := r.out, r.err
	mu.Lock()
	defer mu.Unlock()
	if took := time.Since(secondAt); took > saveGrace+15*time.Second {
		t.Errorf("the run ended %s after the second signal, on a hung bucket", took)
	}
	if out == nil || out.Results == nil {
		t.Fatalf("no results: %v", err)
	}
	joined := strings.Join(warned, "\n")
	for _, want := range []string{"writing the state", "releasing the state's lock", "is left: wbsctl state unlock", "--state 's3://states/hung/state'"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the warnings say no %q:\n%s", want, joined)
		}
	}
}

// A bucket that hangs before the run has its lock ends the run by the
// bounds of the calls alone, with nothing sent: no answer to the take in
// its time is an error that says so. The first signal ends the hung take
// at once, and the read-back that tells whether it wrote the lock within
// its own bound; the error says the lock may be left, and how to release
// it.
func TestHungBucketEndsTheTake(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := testClient(t, srv)
	bucket, store := bucketState(t)
	bucket.Stall()
	// The test's own bound: a take with none would hang past it.
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, c, Input{File: &wbsfile.File{Records: records(3)}, State: store}, Hooks{})
	if ctx.Err() != nil || !errors.Is(err, statestore.ErrTimeout) || !strings.Contains(err.Error(), "taking the lock") {
		t.Fatalf("a take from a hung bucket, after %s: %v; want it bounded, naming the take", time.Since(start).Truncate(time.Second), err)
	}
	stop, signal := context.WithCancelCause(context.Background())
	time.AfterFunc(200*time.Millisecond, func() { signal(errors.New("SIGINT")) })
	start = time.Now()
	_, err = Run(ctx, c, Input{File: &wbsfile.File{Records: records(3)}, State: store, Stop: stop}, Hooks{})
	if took := time.Since(start); err == nil || !strings.Contains(err.Error(), "SIGINT while waiting for the state's lock: nothing was sent") ||
		!strings.Contains(err.Error(), "wbsctl state unlock") || took > 15*time.Second {
		t.Fatalf("a signal during a hung take: %v after %s", err, took)
	}
	if n := len(srv.Elements()); n != 0 {
		t.Fatalf("%d elements made by runs that had no lock", n)
	}
}

// Every member of a state's head is read back as it was written, by the
// same struct tags: a member added to statestore.Head is one edit. The
// test sets every field, so that a field added is a field checked.
func TestStateHeadRoundTrips(t *testing.T) {
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	head := stateHead{FormatVersion: StateFormatVersion, BaseURL: "https://platform.example", ClientID: "c", Lineage: "l", Serial: 7, Applies: 3,
		Break: &BreakRecord{Broken: statestore.Broken{Holder: statestore.Holder{ID: "h", Host: "x", PID: 1, Operation: "apply", Taken: at}, At: at},
			StaleSeconds: 95, By: statestore.Holder{ID: "b", Host: "y", PID: 2, Operation: "apply", Taken: at}, Verified: true},
		Commit: &statestore.Commit{SHA: "bbbb2222", Time: at}}
	v := reflect.ValueOf(head)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the test sets no %s: set every member, so that the round trip covers it", v.Type().Field(i).Name)
		}
	}
	var b bytes.Buffer
	if err := writeState(&b, &head, inOrder(stateElements{})); err != nil {
		t.Fatal(err)
	}
	back, err := readState(&b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.stateHead, head) {
		t.Fatalf("read back %+v, want %+v", back.stateHead, head)
	}
}

// bucketState starts an S3 server in the test's process, and opens a
// state on it.
func bucketState(t *testing.T) (*s3test.Server, statestore.Store) {
	t.Helper()
	s3test.Env(t)
	bucket := s3test.StartServer(t)
	store, err := statestore.Open(context.Background(), bucket.State("test/state"))
	if err != nil {
		t.Fatal(err)
	}
	return bucket, store
}
