package apply_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"pgregory.net/rapid"
)

// TestApplyModel checks apply against a model of the platform: a state
// machine whose steps write random files (CSV, JSON, NDJSON, YAML; random
// fields stated, links or not, invalid records among them), make outside
// changes through a second client, run apply with random flags (--state,
// --refresh, --prune --yes, --skip-invalid, --dry-run --out then --plan,
// --concurrency) under random faults, and cut runs short by cancelling
// them or by killing them at a random request, then running them again.
// After every step the platform holds exactly what the model says.
//
// The budget fits CI under -race; WBSCTL_MODEL_CHECKS and
// WBSCTL_MODEL_STEPS run it longer, and a failure prints the seed that
// repeats it (-rapid.seed).
func TestApplyModel(t *testing.T) {
	setRapidFlag(t, "rapid.checks", "WBSCTL_MODEL_CHECKS", "100")
	setRapidFlag(t, "rapid.steps", "WBSCTL_MODEL_STEPS", "30")
	var runs, steps atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		runs.Add(1)
		m := newModel(t, rt)
		defer m.close()
		rt.Repeat(map[string]func(*rapid.T){
			"":           func(rt *rapid.T) { steps.Add(1); m.checkPlatform(rt) },
			"write file": m.writeFile,
			"outside":    m.outsideChange,
			"apply":      m.apply,
			"save plan":  m.savePlan,
			"run plan":   m.runPlan,
			// A nightly load with --state, killed one night.
			"state, then killed": m.stateThenKilled,
		})
	})
	t.Logf("%d runs, %d steps", runs.Load(), steps.Load())
}

// setRapidFlag gives one of rapid's flags this test's budget, or the
// environment's, unless the command line set it.
func setRapidFlag(t *testing.T, name, env, def string) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if set {
		return
	}
	v := def
	if e := os.Getenv(env); e != "" {
		v = e
	}
	if err := flag.Set(name, v); err != nil {
		t.Fatalf("%s=%s: %v", name, v, err)
	}
}

// The universe of codes and links the files and outside changes draw on:
// a code with a slash, one with a space, and two that differ from others
// only in case or a trailing space among them.
var (
	modelCodes = []string{"E-1", "E-2", "E-3", "E-4", "E/5", "E 6", "e-1", "E-2 "}
	modelOrgs  = []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "2000", EntityType: "company"},
		{Code: "B1", EntityType: "branch"}, {Code: "B=2;x", EntityType: "branch"}}
	modelDescs = []string{"Site works", "a, b", `say "hi"`, "Ümlaut & Co; a", "", "line\nbreak (invalid)"}
)

// element is the model of one element: its description (nil: none), its
// active flag, and its links as a set.
type element struct {
	desc   *string
	active bool
	links  map[sdk.BusinessOrganization]bool
}

func (e element) String() string {
	var links []string
	for o := range e.links {
		links = append(links, notation.FormatOne(o))
	}
	sort.Strings(links)
	d := "null"
	if e.desc != nil {
		d = strconv.Quote(*e.desc)
	}
	return fmt.Sprintf("%s active=%v links=%v", d, e.active, links)
}

func (e element) clone() element {
	out := e
	out.links = map[sdk.BusinessOrganization]bool{}
	for o := range e.links {
		out.links[o] = true
	}
	return out
}

// platform is the model: what the reference server must hold, by code.
type platform map[string]element

func (p platform) clone() platform {
	out := platform{}
	for k, v := range p {
		out[k] = v.clone()
	}
	return out
}

// record is one record of a generated file.
type record struct {
	code    string
	desc    *string // nil: not stated
	active  *bool   // nil: not stated
	orgs    []sdk.BusinessOrganization
	orgsSet bool
	// invalid is a record the readers refuse; unread one whose code no
	// reading can tell (codeUnknown) or that no reader makes a record of.
	invalid     bool
	codeUnknown bool
	// broken is how an invalid record is written wrong, beyond its
	// values: "" none, "unknown member", "code not a string", "cells"
	// (a row of another number of cells), "not a boolean" (a CSV
	// isActive cell), "repeated" (a second record of a code, which
	// differs from the first).
	broken string
}

// applyTo is the element a record makes of before (nil: none).
func (r record) applyTo(before *element) element {
	e := element{active: true, links: map[sdk.BusinessOrganization]bool{}}
	if before != nil {
		e = before.clone()
	}
	if r.desc != nil {
		e.desc = r.desc
		if *r.desc == "" {
			e.desc = nil
		}
	}
	if r.active != nil {
		e.active = *r.active
	}
	if r.orgsSet {
		e.links = map[sdk.BusinessOrganization]bool{}
		for _, o := range r.orgs {
			e.links[o] = true
		}
	}
	return e
}

// file is a generated file: its records and where it is.
type file struct {
	path   string
	format string
	// shape is how the file is written (see writeFile).
	shape   string
	records []record
	// args are the flags apply needs to read it.
	args []string
}

// leftOut are the codes a run leaves out: those of an invalid record
// whose code can be read. Every record of such a code is left out.
func (f *file) leftOut() map[string]bool {
	out := map[string]bool{}
	for _, r := range f.records {
		if r.invalid && !r.codeUnknown {
			out[r.code] = true
		}
	}
	return out
}

// valid are the records a run applies.
func (f *file) valid() []record {
	left := f.leftOut()
	var out []record
	for _, r := range f.records {
		if !r.invalid && !left[r.code] {
			out = append(out, r)
		}
	}
	return out
}

func (f *file) invalidCount() int {
	n := 0
	for _, r := range f.records {
		if r.invalid {
			n++
		}
	}
	return n
}

// codeUnknown reports whether a record's code cannot be read.
func (f *file) codeUnknown() bool {
	for _, r := range f.records {
		if r.codeUnknown {
			return true
		}
	}
	return false
}

// named are the codes the file names, valid or not.
func (f *file) named() map[string]bool {
	out := map[string]bool{}
	for _, r := range f.records {
		if !r.codeUnknown {
			out[r.code] = true
		}
	}
	return out
}

// expect is what the platform holds once f is applied to p: every valid
// record applied, and with prune every element no record names, valid
// or not, deleted. The elements of keepLinks keep their links: a state
// file holds them as the record states them, and the list shows the
// element as the state recorded it, so they are not read.
func (f *file) expect(p platform, prune bool, keepLinks map[string]bool) platform {
	out := p.clone()
	named := f.named()
	for _, r := range f.valid() {
		var before *element
		if e, ok := p[r.code]; ok {
			before = &e
		}
		out[r.code] = r.applyTo(before)
		if keepLinks[r.code] && before != nil {
			e := out[r.code]
			e.links = before.clone().links
			out[r.code] = e
		}
	}
	if prune {
		for code := range out {
			if !named[code] {
				delete(out, code)
			}
		}
	}
	return out
}

// savedPlan is a plan saved by the model's dry run: the platform it was
// made against and the file and flags it was made of.
type savedPlan struct {
	path   string
	before platform
	file   *file
	prune  bool
	// keep are the elements whose links the plan took from --state,
	// and stated what that state recorded of them.
	keep   map[string]bool
	stated map[string]stateEntry
	// state is the state the plan was made with, as its dry run left
	// it: nil for a plan made without one.
	state *stateVersion
}

// stateVersion is a state's lineage and applies, which a saved plan
// records of the state it was made with.
type stateVersion struct {
	Lineage string `json:"lineage"`
	Applies int64  `json:"applies"`
}

// trustedNow are the elements of keep whose links apply --plan trusts
// with the state of entries: those it still records as the plan found
// them, links and fields.
func (sp *savedPlan) trustedNow(entries map[string]stateEntry) map[string]bool {
	out := map[string]bool{}
	for code := range sp.keep {
		then := sp.stated[code]
		if now, ok := entries[code]; ok && now.BusinessOrganizations != nil && now.IsActive == then.IsActive && sameText(now.Description, then.Description) &&
			linkSet(now.BusinessOrganizations) == linkSet(then.BusinessOrganizations) {
			out[code] = true
		}
	}
	return out
}

// applied is the element r makes of cur when the plan's step is carried
// out: the links the plan took from the state stay as they are.
func (sp *savedPlan) applied(r record, cur *element) element {
	a := r.applyTo(cur)
	if sp.keep[r.code] && cur != nil {
		a.links = cur.clone().links
	}
	return a
}

// readStateVersion reads the lineage and applies of the state file at
// path; nil when there is none.
func readStateVersion(rt *rapid.T, path string) *stateVersion {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var v stateVersion
	if err := json.Unmarshal(b, &v); err != nil {
		rt.Fatalf("%s: %v", path, err)
	}
	return &v
}

type model struct {
	t     *testing.T
	srv   *wbstest.Server
	other *sdk.Client
	mode  wbstest.OrgUpdateMode
	want  platform
	dir   string
	// shared is a folder of mode 1777, as /tmp is: apply writes files
	// there and must leave its mode alone.
	shared   string
	state    string
	file     *file
	plan     *savedPlan
	tr       *http.Transport
	nextFile int
	// ts serves srv, counting the requests it is handling and the
	// connections it has open: a request a cut run gave up on may still
	// be carried out after the run ended, as on a real platform, and the
	// next step waits for it.
	ts       *httptest.Server
	mu       sync.Mutex
	handling int
	open     int
	// intercept, when set, sees each request first, and serves it
	// itself, or drops it, by returning false.
	intercept func(w http.ResponseWriter, r *http.Request) bool
	// refused counts the creates the platform refused (400, or 409 as
	// another platform answers), by run and code. An in-process run
	// marks its requests with its number (runHeader); a process's have
	// none.
	refused map[runCode]int
	created map[runCode]bool
	// sent counts the requests the platform answered, by run, and
	// wrote those of them that write.
	sent, wrote map[string]int
	refusal     int
	runs        int
	lastRun     string // the number of the last in-process run
	log         []string
	// late is a request of a killed run held to commit after the next
	// run read the list; release lets it.
	late    sync.WaitGroup
	release chan struct{}
}

func newModel(t *testing.T, rt *rapid.T) *model {
	mode := rapid.SampledFrom([]wbstest.OrgUpdateMode{wbstest.OrgMerge, wbstest.OrgReplace}).Draw(rt, "org update mode")
	// The platform as each reading of the spec has it: how its lists
	// page, and tokens that expire within a run.
	srv := wbstest.New(wbstest.WithOrgUpdateMode(mode), wbstest.WithSeed(rapid.Int64().Draw(rt, "server seed")),
		wbstest.WithNextStyle(rapid.SampledFrom([]wbstest.NextStyle{wbstest.NextURL, wbstest.NextRelativeURL, wbstest.NextPageNumber,
			wbstest.NextOffset, wbstest.NextCursor, wbstest.NextNull, wbstest.NextAbsent}).Draw(rt, "next")),
		wbstest.WithHitsMeaning(rapid.SampledFrom([]wbstest.HitsMeaning{wbstest.HitsTotal, wbstest.HitsPageCount, wbstest.HitsNull}).Draw(rt, "hits")),
		wbstest.WithPastEnd(rapid.SampledFrom([]wbstest.PastEnd{wbstest.PastEndEmpty, wbstest.PastEndNotFound, wbstest.PastEndLastPage}).Draw(rt, "past the end")),
		wbstest.WithEmptyListStatus(rapid.SampledFrom([]int{http.StatusOK, http.StatusNotFound}).Draw(rt, "empty list")),
		wbstest.WithTokenLifetime(rapid.SampledFrom([]time.Duration{time.Hour, 2 * time.Second}).Draw(rt, "token lifetime")))
	// The spec does not say how a create of a code that exists is
	// refused: the reference server answers 400, others 409.
	refusal := rapid.SampledFrom([]int{http.StatusBadRequest, http.StatusConflict}).Draw(rt, "a create of what exists")
	m := &model{t: t, srv: srv, mode: mode, refusal: refusal, want: platform{}, refused: map[runCode]int{}, created: map[runCode]bool{}, sent: map[string]int{}, wrote: map[string]int{}}
	m.ts = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.handling++
		intercept := m.intercept
		m.mu.Unlock()
		defer func() {
			m.mu.Lock()
			m.handling--
			m.mu.Unlock()
		}()
		if intercept != nil && !intercept(w, r) {
			return
		}
		m.serve(w, r)
	}))
	m.ts.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		m.mu.Lock()
		defer m.mu.Unlock()
		switch state {
		case http.StateNew:
			m.open++
		case http.StateClosed, http.StateHijacked:
			m.open--
		}
	}
	m.ts.Start()
	srv.URL = m.ts.URL
	tr := &http.Transport{}
	other, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		rt.Fatal(err)
	}
	m.dir = t.TempDir()
	m.shared = filepath.Join(m.dir, "shared")
	if err := os.Mkdir(m.shared, 0o755); err != nil {
		rt.Fatal(err)
	}
	if err := os.Chmod(m.shared, 0o777|os.ModeSticky); err != nil {
		rt.Fatal(err)
	}
	stateDir := rapid.SampledFrom([]string{m.dir, m.shared}).Draw(rt, "state folder")
	m.other, m.state, m.tr = other, filepath.Join(stateDir, "apply.state"), tr
	return m
}

// serve has the platform answer r, noting the creates it refused.
func (m *model) serve(w http.ResponseWriter, r *http.Request) {
	code := ""
	if r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		code = createdCode(r.Method, r.URL.Path, body)
	}
	rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	if code != "" {
		rec.refusal = m.refusal
	}
	m.srv.ServeHTTP(rec, r)
	rc := runCode{r.Header.Get(runHeader), code}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent[rc.run]++
	if r.Method != http.MethodGet && r.URL.Path != "/v1/auth/tokens" {
		m.wrote[rc.run]++
	}
	switch {
	case code == "":
	case rec.status == http.StatusBadRequest || rec.status == http.StatusConflict:
		m.refused[rc]++
	case rec.status < 300:
		m.created[rc] = true
	}
}

// statusWriter notes the status of an answer; refusal, when set, is the
// status a refused create is answered with instead of 400.
type statusWriter struct {
	http.ResponseWriter
	status, refusal int
}

func (w *statusWriter) WriteHeader(status int) {
	if status == http.StatusBadRequest && w.refusal != 0 {
		status = w.refusal
	}
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// settle waits until the server handles no request and has read every
// request sent: the client closes its idle connections (one dialed for a
// request given up on joins them late, so again until the end), and the
// server, which reads what each holds before it sees the end, closes them
// all. Waiting for no request alone missed one still on its way to the
// handler. A run that leaves requests running for the model's time bound
// fails the test.
//
// After a run cut short, the server must stay quiet for a while too: a
// connection the kernel accepted for a request written just before the
// cut reaches the server's accept loop late, and its request with it.
func (m *model) settle(rt *rapid.T, cut bool) {
	deadline := time.Now().Add(30 * time.Second)
	var quietSince time.Time
	for {
		m.tr.CloseIdleConnections()
		m.mu.Lock()
		handling, open := m.handling, m.open
		m.mu.Unlock()
		switch {
		case handling == 0 && open == 0 && !cut:
			return
		case handling == 0 && open == 0:
			if quietSince.IsZero() {
				quietSince = time.Now()
			}
			if time.Since(quietSince) > 100*time.Millisecond {
				return
			}
		case time.Now().After(deadline):
			rt.Fatalf("after 30 s the server still handles %d requests on %d connections", handling, open)
		default:
			quietSince = time.Time{}
		}
		time.Sleep(time.Millisecond)
	}
}

func (m *model) close() {
	if m.release != nil {
		close(m.release)
		m.release = nil
	}
	m.late.Wait()
	m.tr.CloseIdleConnections()
	m.ts.Close()
}

// held is what the reference server holds, in the model's terms.
func (m *model) held() platform {
	out := platform{}
	for _, el := range m.srv.Elements() {
		e := element{desc: el.Description, active: el.IsActive, links: map[sdk.BusinessOrganization]bool{}}
		for _, o := range el.BusinessOrganizations {
			e.links[sdk.BusinessOrganization{Code: o.Code, EntityType: o.EntityType}] = true
		}
		out[el.Code] = e
	}
	return out
}

func diff(want, got platform) string {
	var out []string
	codes := map[string]bool{}
	for c := range want {
		codes[c] = true
	}
	for c := range got {
		codes[c] = true
	}
	for c := range codes {
		w, wok := want[c]
		g, gok := got[c]
		switch {
		case wok && !gok:
			out = append(out, fmt.Sprintf("%q: missing, want %v", c, w))
		case !wok && gok:
			out = append(out, fmt.Sprintf("%q: %v, want none", c, g))
		case w.String() != g.String():
			out = append(out, fmt.Sprintf("%q: %v, want %v", c, g, w))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func (m *model) checkPlatform(rt *rapid.T) {
	if d := diff(m.want, m.held()); d != "" {
		rt.Fatalf("the platform is not as the model says:\n%s\nafter: %s", d, strings.Join(m.log, "\n"))
	}
	m.checkFolder(rt)
}

// checkFolder fails when the shared folder lost its mode, or a file
// apply wrote there can be read by others.
func (m *model) checkFolder(rt *rapid.T) {
	fi, err := os.Stat(m.shared)
	if err != nil || fi.Mode() != os.ModeDir|os.ModeSticky|0o777 {
		rt.Fatalf("the shared folder is %v (%v), want drwxrwxrwt", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(m.shared)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() != 0o600 {
			rt.Fatalf("%s is %v, want -rw-------", e.Name(), fi.Mode())
		}
	}
}

// stateEntry is an entry of a state file, as the model reads it.
type stateEntry struct {
	Description           *string                    `json:"description"`
	IsActive              bool                       `json:"isActive"`
	BusinessOrganizations []sdk.BusinessOrganization `json:"businessOrganizations"`
}

// readState reads the entries of the state file at path, by code; nil
// when there is none.
func readState(rt *rapid.T, path string) map[string]stateEntry {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var st struct {
		Elements map[string]stateEntry `json:"elements"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		rt.Fatalf("the state file: %v", err)
	}
	return st.Elements
}

// linkSet is links as the model compares them: a set, written in order.
func linkSet(links []sdk.BusinessOrganization) string {
	return fmt.Sprint(element{links: record{orgsSet: true, orgs: links}.applyTo(nil).links})
}

// sameText reports whether two texts, nil for none, are the same.
func sameText(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// stateEntries reads the entries of the state file, by code, as the
// model writes elements; nil without a state file.
func (m *model) stateEntries(rt *rapid.T) map[string]element {
	entries := readState(rt, m.state)
	if entries == nil {
		return nil
	}
	held := m.held()
	out := map[string]element{}
	for code, e := range entries {
		recorded := element{desc: e.Description, active: e.IsActive, links: held[code].links}
		if e.BusinessOrganizations != nil {
			recorded.links = record{orgsSet: true, orgs: e.BusinessOrganizations}.applyTo(nil).links
		}
		out[code] = recorded
	}
	return out
}

// stateHolds are the codes whose state entries hold: the platform holds
// the element as the entry recorded it.
func (m *model) stateHolds(rt *rapid.T) map[string]bool {
	held := m.held()
	out := map[string]bool{}
	for code, e := range m.stateEntries(rt) {
		if h, ok := held[code]; ok && h.String() == e.String() {
			out[code] = true
		}
	}
	return out
}

// checkState fails when an entry of the state file that held before a
// run with --state (holds) no longer holds after it: the platform holds
// the element otherwise than the entry says. An entry whose description
// and active flag no longer hold is not trusted (guard 16); one whose
// links no longer hold, while the rest does, would be trusted and its
// links never read. A run drops the entries of the elements it changes
// before its first write, so no run, not even one killed, leaves either.
// Entries that did not hold before are left aside: elements changed
// outside, or by a run without --state, which the state cannot know of
// (a documented limit of --state).
func (m *model) checkState(rt *rapid.T, holds map[string]bool) {
	held := m.held()
	for code, e := range m.stateEntries(rt) {
		if h, ok := held[code]; ok && holds[code] && h.String() != e.String() {
			rt.Fatalf("the state file says %q holds %v; the platform holds %v", code, e, h)
		}
	}
}

// outsideChange changes the platform through a second client, as another
// person or job would.
func (m *model) outsideChange(rt *rapid.T) {
	ch := m.drawOutside(rt, nil)
	if ch == nil {
		return
	}
	if err := ch.make(context.Background()); err != nil {
		rt.Fatalf("%s: %v", ch.what, err)
	}
	ch.apply(m.want)
}

// outside is a change made outside apply: make makes it through the
// second client, apply makes it in the model.
type outside struct {
	code, what string
	make       func(ctx context.Context) error
	apply      func(p platform)
}

// drawOutside draws a change of an element made outside; with among,
// an update of one of those elements, which exist, or nil when among is
// empty.
func (m *model) drawOutside(rt *rapid.T, among map[string]bool) *outside {
	updatesOnly := among != nil
	codes := modelCodes
	if updatesOnly {
		codes = slices.Sorted(maps.Keys(among))
		if len(codes) == 0 {
			return nil
		}
	}
	code := rapid.SampledFrom(codes).Draw(rt, "outside code")
	el := m.other.WBSElements
	ch := &outside{code: code}
	cur, exists := m.want[code]
	if !exists {
		d := rapid.SampledFrom(modelDescs[:4]).Draw(rt, "outside description")
		links := rapid.SliceOfDistinct(rapid.SampledFrom(modelOrgs), func(o sdk.BusinessOrganization) string { return notation.FormatOne(o) }).Draw(rt, "outside links")
		ch.what = fmt.Sprintf("outside create %q", code)
		ch.make = func(ctx context.Context) error {
			_, err := el.Create(ctx, &sdk.CreateWBSElementRequest{Code: code, Description: &d, BusinessOrganizations: links})
			return err
		}
		ch.apply = func(p platform) { p[code] = record{code: code, desc: &d, orgsSet: true, orgs: links}.applyTo(nil) }
		return ch
	}
	kinds := 4
	if updatesOnly {
		kinds = 3
	}
	switch rapid.IntRange(0, kinds-1).Draw(rt, "outside change") {
	case 0:
		d := rapid.SampledFrom(modelDescs[:4]).Draw(rt, "outside description")
		a := rapid.Bool().Draw(rt, "outside isActive")
		ch.what = fmt.Sprintf("outside update %q", code)
		ch.make = func(ctx context.Context) error {
			_, err := el.Update(ctx, code, &sdk.UpdateWBSElementRequest{Description: sdk.Set(d), IsActive: sdk.Set(a)})
			return err
		}
		ch.apply = func(p platform) {
			e := p[code]
			e.desc, e.active = &d, a
			p[code] = e
		}
	case 1:
		add := rapid.SliceOfNDistinct(rapid.SampledFrom(modelOrgs), 1, 2, func(o sdk.BusinessOrganization) string { return notation.FormatOne(o) }).Draw(rt, "outside links added")
		ch.what = fmt.Sprintf("outside links of %q", code)
		ch.make = func(ctx context.Context) error {
			_, err := el.Update(ctx, code, &sdk.UpdateWBSElementRequest{BusinessOrganizations: sdk.Set(add)})
			return err
		}
		ch.apply = func(p platform) {
			e := p[code].clone()
			if m.mode == wbstest.OrgReplace {
				e.links = map[sdk.BusinessOrganization]bool{}
			}
			for _, o := range add {
				e.links[o] = true
			}
			p[code] = e
		}
	case 2:
		have := slices.SortedFunc(maps.Keys(cur.links), func(a, b sdk.BusinessOrganization) int {
			return strings.Compare(notation.FormatOne(a), notation.FormatOne(b))
		})
		if len(have) == 0 {
			return nil
		}
		o := rapid.SampledFrom(have).Draw(rt, "outside link removed")
		ch.what = fmt.Sprintf("outside link removal of %q", code)
		ch.make = func(ctx context.Context) error {
			_, err := el.DeleteBusinessOrganizations(ctx, code, &sdk.DeleteBusinessOrganizationsRequest{BusinessOrganizations: []sdk.BusinessOrganization{o}})
			return err
		}
		ch.apply = func(p platform) {
			e := p[code].clone()
			delete(e.links, o)
			p[code] = e
		}
	case 3:
		ch.what = fmt.Sprintf("outside delete %q", code)
		ch.make = func(ctx context.Context) error {
			_, err := el.Delete(ctx, code)
			return err
		}
		ch.apply = func(p platform) { delete(p, code) }
	}
	return ch
}

// during makes an outside change before the at-th request of the run it
// carries goes out: while the run is in flight.
type during struct {
	base http.RoundTripper
	at   int64
	ch   *outside
	n    atomic.Int64
	err  error
}

func (d *during) RoundTrip(r *http.Request) (*http.Response, error) {
	if d.n.Add(1) == d.at {
		d.err = d.ch.make(context.Background())
	}
	return d.base.RoundTrip(r)
}

// flags are the random flags of one apply.
type flags struct {
	state, refresh, prune, skipInvalid, dryRun, detailed bool
	// verifyAll is --verify-budget 100%: every link the state would have
	// the plan trust is read again; else --verify-budget 0, the state
	// trusted whole. (The default budget's choice, the oldest first, is
	// TestALinkRemovedOutsideIsCaughtWithinTheBound's.)
	verifyAll             bool
	concurrency, pageSize int
	rate                  string
	// statePath and report are the files of --state and --report ("":
	// none for --report).
	statePath, report string
}

func (f flags) args(file string) []string {
	args := []string{"apply", "-f", file, "--rate", f.rate, "--concurrency", strconv.Itoa(f.concurrency)}
	if f.pageSize > 0 {
		args = append(args, "--page-size", strconv.Itoa(f.pageSize))
	}
	if f.state {
		args = append(args, "--state", f.statePath)
	}
	if f.state && f.refresh {
		args = append(args, "--refresh")
	}
	if f.state && !f.refresh {
		args = append(args, "--verify-budget", map[bool]string{true: "100%", false: "0"}[f.verifyAll])
	}
	if f.report != "" {
		args = append(args, "--report", f.report)
	}
	if f.prune {
		args = append(args, "--prune", "--yes")
	}
	if f.skipInvalid {
		args = append(args, "--skip-invalid")
	}
	if f.dryRun {
		args = append(args, "--dry-run")
	}
	if f.dryRun && f.detailed {
		args = append(args, "--detailed-exitcode")
	}
	return args
}

func (m *model) drawFlags(rt *rapid.T) flags {
	fl := flags{
		state: rapid.Bool().Draw(rt, "--state"), refresh: rapid.IntRange(0, 3).Draw(rt, "--refresh") == 0,
		prune: rapid.Bool().Draw(rt, "--prune"), skipInvalid: rapid.Bool().Draw(rt, "--skip-invalid"),
		verifyAll: rapid.IntRange(0, 3).Draw(rt, "--verify-budget 100%") == 0,
		dryRun:    rapid.IntRange(0, 3).Draw(rt, "--dry-run") == 0, detailed: rapid.Bool().Draw(rt, "--detailed-exitcode"),
		concurrency: rapid.IntRange(1, 4).Draw(rt, "--concurrency"),
		// Pages smaller than the list, so that its reads cross them.
		pageSize:  rapid.SampledFrom([]int{0, 1, 2, 3}).Draw(rt, "--page-size"),
		statePath: m.state,
		// A pace, or none: the 429s of the faults are met either way.
		rate: rapid.SampledFrom([]string{"0", "6000/min", "100/s"}).Draw(rt, "--rate"),
	}
	fl.report = rapid.SampledFrom([]string{"", filepath.Join(m.dir, "report.ndjson"), filepath.Join(m.shared, "report.ndjson")}).Draw(rt, "--report")
	return fl
}

// clash draws a file to write that is a file read or another file to
// write, by its name or through a link: apply refuses it before it reads
// or sends anything. It returns "" for none.
func (m *model) clash(rt *rapid.T, fl *flags, input string) string {
	how := rapid.SampledFrom([]string{"", "", "", "", "", "", "", "--state is -f", "--report is -f",
		"--report is --state", "--state is a link to -f", "--report is a link to -f"}).Draw(rt, "clash")
	link := func() string {
		m.nextFile++
		l := filepath.Join(m.dir, fmt.Sprintf("link-%d", m.nextFile))
		if err := os.Symlink(input, l); err != nil {
			rt.Fatal(err)
		}
		return l
	}
	switch how {
	case "--state is -f":
		fl.state, fl.statePath = true, input
	case "--report is -f":
		fl.report = input
	case "--report is --state":
		fl.state, fl.report = true, fl.statePath
	case "--state is a link to -f":
		fl.state, fl.statePath = true, link()
	case "--report is a link to -f":
		fl.report = link()
	}
	return how
}

// outcome is what a run of f with fl must do to the model's platform:
// the exit code and the platform after it.
func (m *model) outcome(f *file, fl flags, keepLinks map[string]bool) (int, platform) {
	switch {
	case f.invalidCount() > 0 && !fl.skipInvalid:
		return cmdutil.ExitValidation, m.want
	case fl.prune && len(f.valid()) == 0:
		return cmdutil.ExitUsage, m.want
	case fl.prune && f.codeUnknown():
		// A record whose code cannot be read may name any element.
		return cmdutil.ExitValidation, m.want
	}
	after := f.expect(m.want, fl.prune, keepLinks)
	if fl.dryRun {
		if fl.detailed && diff(m.want, after) != "" {
			return cmdutil.ExitPending, m.want
		}
		return 0, m.want
	}
	if f.invalidCount() > 0 {
		return cmdutil.ExitPartial, after
	}
	return 0, after
}

// leastRequests is a lower bound of the requests a run of f makes that
// changes before into after: a token, the pages of the list, a read of
// the links of each element whose record states them and whose links the
// state does not hold (keep), a write for each element that changes. The
// writes are the last of them.
func leastRequests(f *file, keep map[string]bool, before, after platform, pageSize int) int {
	if pageSize == 0 {
		pageSize = sdk.DefaultAllPageSize
	}
	n := 1 + max(1, (len(before)+pageSize-1)/pageSize)
	for _, r := range f.valid() {
		if _, ok := before[r.code]; ok && r.orgsSet && !keep[r.code] {
			n++
		}
	}
	return n + changes(before, after)
}

// changes counts the elements that differ between before and after.
func changes(before, after platform) int {
	n := 0
	for code, a := range after {
		if b, ok := before[code]; !ok || b.String() != a.String() {
			n++
		}
	}
	for code := range before {
		if _, ok := after[code]; !ok {
			n++
		}
	}
	return n
}

// drawCut draws the request a run of least requests or more is cut at:
// any of them, or, as often, one of its writes (the last of them).
func drawCut(rt *rapid.T, least, writes int, name string) int64 {
	if writes > 0 && rapid.Bool().Draw(rt, name+" among the writes") {
		return int64(rapid.IntRange(least-writes+1, least).Draw(rt, name))
	}
	return int64(rapid.IntRange(1, least).Draw(rt, name))
}

// faultSets are the faults a run may meet: lost answers after commit,
// 500s and 503s, resets, latency, 429s, and tokens that the platform
// stops taking.
var faultSets = map[string][]wbstest.FaultRule{
	"lost create answers":   {{Operation: wbstest.OpCreate, Kind: wbstest.FaultDropAfterCommit, Probability: 0.4}},
	"lost update answers":   {{Operation: wbstest.OpUpdate, Kind: wbstest.FaultDropAfterCommit, Probability: 0.4}},
	"500s":                  {{Kind: wbstest.FaultStatus, Status: http.StatusInternalServerError, Probability: 0.2}},
	"503s":                  {{Kind: wbstest.FaultStatus, Status: http.StatusServiceUnavailable, Probability: 0.2}},
	"503s with Retry-After": {{Kind: wbstest.FaultStatus, Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Probability: 0.2}},
	"429s":                  {{Kind: wbstest.FaultStatus, Status: http.StatusTooManyRequests, RetryAfter: time.Second, Probability: 0.2}},
	"resets":                {{Kind: wbstest.FaultReset, Probability: 0.15}},
	"writes refused": {{Operation: wbstest.OpUpdate, Kind: wbstest.FaultStatus, Status: http.StatusBadRequest, Probability: 0.5},
		{Operation: wbstest.OpCreate, Kind: wbstest.FaultStatus, Status: http.StatusUnprocessableEntity, Probability: 0.5},
		{Operation: wbstest.OpDelete, Kind: wbstest.FaultStatus, Status: http.StatusBadRequest, Probability: 0.3}},
	"latency": {{Kind: wbstest.FaultLatency, Latency: 2 * time.Millisecond, Probability: 0.5}},
}

// cut ends an in-process run at its at-th request by cancelling it (the
// second signal).
type cut struct {
	base   http.RoundTripper
	at     int64
	cancel context.CancelFunc
	n      atomic.Int64
}

func (c *cut) RoundTrip(r *http.Request) (*http.Response, error) {
	if c.n.Add(1) == c.at {
		c.cancel()
		return nil, context.Canceled
	}
	return c.base.RoundTrip(r)
}

// afterList lets the held request of a killed run commit once the run it
// carries has read the whole element list: before its first request that
// is neither the token nor a page of the list. Committed while the list
// is read, a create or delete would shift its pages under the run, which
// a platform whose pages are numbered allows.
type afterList struct {
	base http.RoundTripper
	m    *model
	once sync.Once
}

func (a *afterList) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path != "/v1/wbs-elements" && r.URL.Path != "/v1/auth/tokens" || r.Method != http.MethodGet && r.URL.Path == "/v1/wbs-elements" {
		a.once.Do(a.m.commitLate)
	}
	return a.base.RoundTrip(r)
}

// commitLate lets the held request commit, and waits for it.
func (m *model) commitLate() {
	if m.release != nil {
		close(m.release)
		m.release = nil
	}
	m.late.Wait()
}

// createdCode is the code a request creates, or "".
func createdCode(method, path string, body []byte) string {
	if method != http.MethodPost || path != "/v1/wbs-elements" {
		return ""
	}
	var req struct {
		Code string `json:"wbsElementCode"`
	}
	json.Unmarshal(body, &req)
	return req.Code
}

// run runs wbsctl in-process against the model's server; tr, when set,
// carries the requests.
func (m *model) run(rt *rapid.T, ctx context.Context, tr http.RoundTripper, args ...string) cmdtest.Result {
	if tr == nil {
		tr = m.tr
	}
	m.runs++
	run := strconv.Itoa(m.runs)
	done := make(chan cmdtest.Result, 1)
	go func() {
		done <- cmdtest.Run{Ctx: ctx, Transport: marked{tr, run}}.Do(m.t, m.srv, args...)
	}()
	var res cmdtest.Result
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		rt.Fatalf("%v made no progress for 60 s", args)
	}
	m.lastRun = run
	// What the run sent and gave up on is carried out before the next
	// step looks.
	_, cutShort := tr.(*cut)
	m.settle(rt, cutShort)
	return res
}

// kill is how a process of wbsctl is ended at a request (see runKilled).
type kill struct {
	at  int64
	how string
}

// The ways a process is ended: SIGKILL before its request reaches the
// platform, or after the platform committed it, or before, with the
// request committing late, after the next run read the list; SIGTERM,
// which lets the writes in flight finish and starts no other; SIGTERM
// then SIGKILL at the next request.
var kills = []string{"SIGKILL", "SIGKILL after commit", "SIGKILL, late commit", "SIGTERM", "SIGTERM then SIGKILL"}

// runKilled runs wbsctl as a process of its own, signalled at its k.at-th
// request, and returns its exit code (-1: killed) and stderr.
func (m *model) runKilled(rt *rapid.T, k kill, args ...string) (int, string) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsWbsctl+"=1", "WBSCTL_BASE_URL="+m.srv.URL, "WBSCTL_CLIENT_ID="+m.srv.ClientID,
		"WBSCTL_CLIENT_SECRET="+m.srv.ClientSecret, "XDG_CONFIG_HOME="+m.t.TempDir(), "XDG_CACHE_HOME="+m.t.TempDir(), "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		rt.Fatal(err)
	}
	exited := make(chan struct{})
	var n atomic.Int64
	killNow := func() {
		cmd.Process.Kill()
		<-exited
	}
	m.mu.Lock()
	m.intercept = func(w http.ResponseWriter, r *http.Request) bool {
		i := n.Add(1)
		switch {
		case i < k.at:
			return true
		case i == k.at:
			switch k.how {
			case "SIGKILL":
				killNow()
				return false
			case "SIGKILL after commit":
				m.serve(httptest.NewRecorder(), r)
				killNow()
				return false
			case "SIGKILL, late commit":
				killNow()
				body, _ := io.ReadAll(r.Body)
				late := r.Clone(context.Background())
				late.Body = io.NopCloser(bytes.NewReader(body))
				release := make(chan struct{})
				m.release = release
				m.late.Go(func() {
					<-release
					m.serve(httptest.NewRecorder(), late)
				})
				return false
			default:
				cmd.Process.Signal(syscall.SIGTERM)
				return true
			}
		case k.how == "SIGTERM then SIGKILL":
			killNow()
			return false
		}
		return true
	}
	m.mu.Unlock()
	var done sync.WaitGroup
	done.Go(func() {
		cmd.Wait()
		close(exited)
	})
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		done.Wait()
		rt.Fatalf("%v made no progress for 60 s:\n%s", args, stderr.String())
	}
	done.Wait()
	m.mu.Lock()
	m.intercept = nil
	m.mu.Unlock()
	m.settle(rt, true)
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// runAsWbsctl, in the environment, makes the test binary run wbsctl: a
// process the model can kill.
const runAsWbsctl = "WBSCTL_MODEL_RUN_AS_WBSCTL"

func TestMain(m *testing.M) {
	if os.Getenv(runAsWbsctl) == "1" {
		os.Exit(root.Run(context.Background(), cmdutil.New(iostreams.System()), os.Args[1:]))
	}
	os.Exit(m.Run())
}

// writes counts the writes of the last in-process run the platform
// answered: by the mark of the run, so that a request of a run cut short
// before, arriving late, is not counted.
func (m *model) writes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.wrote[m.lastRun]
}

// runCode is a code a run created.
type runCode struct{ run, code string }

// runHeader carries the number of the in-process run that sent a request.
const runHeader = "X-Model-Run"

// marked marks the requests of a run with its number.
type marked struct {
	base http.RoundTripper
	run  string
}

func (t marked) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(runHeader, t.run)
	return t.base.RoundTrip(r)
}

// checkNoDuplicateCreate fails when a create of the run (its number, or
// "" for a process) was refused, with 400 or 409: while only this tool
// writes, it never creates what exists. After a run cut short (cut: its
// number, or "" for a killed process), a create the cut run made may
// commit after this run read the list, as on a real platform: it was on
// the wire, or held to commit late. This run's create of that code is
// then refused, once, and settled. A request of a run cut short that is
// refused after the run ended raced the next run: it is left aside.
func (m *model) checkNoDuplicateCreate(rt *rapid.T, run string, cut *string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for rc, n := range m.refused {
		if rc.run != run {
			continue
		}
		delete(m.refused, rc)
		if cut == nil || !m.created[runCode{*cut, rc.code}] || n > 1 {
			var j []string
			for _, e := range m.srv.Journal() {
				j = append(j, fmt.Sprintf("%s %s %s %d %s", e.Operation, e.Method, e.Path, e.Status, e.Fault))
			}
			rt.Fatalf("the create of %q was refused %d times (run %q): apply created what existed; the requests:\n%s", rc.code, n, run, strings.Join(j, "\n"))
		}
	}
}

// checkNamedKept fails when an element a record names, valid or not, is
// gone although it was there before the run.
func (m *model) checkNamedKept(rt *rapid.T, f *file, before platform) {
	held := m.held()
	for code := range f.named() {
		if _, was := before[code]; was {
			if _, is := held[code]; !is {
				rt.Fatalf("%q, named on the file (left out: %v), was deleted", code, f.leftOut()[code])
			}
		}
	}
}

// checkOthersKept fails when an element no valid record names changed,
// other than by a prune.
func (m *model) checkOthersKept(rt *rapid.T, f *file, before platform, prune bool) {
	held := m.held()
	changing := map[string]bool{}
	for _, r := range f.valid() {
		changing[r.code] = true
	}
	named := f.named()
	for code, was := range before {
		if changing[code] || (prune && !named[code]) {
			continue
		}
		if is, ok := held[code]; !ok || is.String() != was.String() {
			rt.Fatalf("%q, which no valid record names, changed: %v, was %v", code, is, was)
		}
	}
}

// checkExit holds the exit code of a run that met trouble to what it
// did: want (the code of a run without trouble) only when every change
// was made; 6 when one was not; 1 only when nothing was changed; after
// SIGTERM, 143, and after SIGKILL anything. Whatever the code, no element
// was pruned unless every other change was made.
//
// Under faults that fail no change for good (create answers lost after
// commit, latency), the code is exact: want, and 6 only when a change was
// not made, since a lost create is settled by reading back. An update is
// resent when its answer is lost, but when every attempt's answer is
// lost it is reported failed though it was made: under lost update
// answers, 6 is exact only when no failure is such a lost answer.
func (m *model) checkExit(rt *rapid.T, what string, code, want int, errOut string, before, after platform, signalled bool) {
	exact := false
	for _, set := range []string{"lost create answers", "latency"} {
		exact = exact || strings.Contains(what, "under "+set)
	}
	if strings.Contains(what, "under lost update answers") && !strings.Contains(errOut, "update failed: update WBS element: Put ") {
		exact = true
	}
	held := m.held()
	made, pruned, pruneDone := true, false, true
	for c, a := range after {
		if h, ok := held[c]; !ok || h.String() != a.String() {
			made = false
		}
	}
	for c := range before {
		if _, kept := after[c]; kept {
			continue
		}
		if _, is := held[c]; is {
			pruneDone = false
		} else {
			pruned = true
		}
	}
	switch {
	case pruned && !made:
		rt.Fatalf("%s: exit %d; an element was pruned although another change was not made:\n%s\n%s", what, code, diff(after, held), errOut)
	case signalled && (code == 128+int(syscall.SIGTERM) || code == -1):
	case code == cmdutil.ExitPartial && exact && made && pruneDone && want != cmdutil.ExitPartial:
		rt.Fatalf("%s: exit 6, although every change was made:\n%s", what, errOut)
	case code == cmdutil.ExitPartial:
	case code == cmdutil.ExitError && diff(before, held) == "":
	case code == want && made && pruneDone:
	default:
		rt.Fatalf("%s: exit %d (%d only when every change is made), and the platform differs from the plan's end:\n%s\n%s", what, code, want, diff(after, held), errOut)
	}
}

// apply runs apply with random flags, perhaps under faults, cut short or
// killed, and then, if it was, again as it is, which must converge.
func (m *model) apply(rt *rapid.T) {
	if m.file == nil {
		m.writeFile(rt)
	}
	f := m.file
	fl := m.drawFlags(rt)
	trouble := rapid.SampledFrom([]string{"none", "faults", "faults", "cancel", "kill", "outside during"}).Draw(rt, "trouble")
	if trouble == "kill" && rapid.Bool().Draw(rt, "killed with --state") {
		// What a killed run leaves in its state file is read by the
		// next: draw it more often.
		fl.state, fl.refresh = true, false
	}
	if clash := m.clash(rt, &fl, f.path); clash != "" {
		m.runClash(rt, clash, append(fl.args(f.path), f.args...), f.path, fl.statePath)
		return
	}
	m.applyWith(rt, f, fl, trouble)
}

// stateThenKilled is a nightly load with --state that is killed one
// night: the file applied with --state, then a file that changes the
// same elements applied with --state and killed with SIGKILL among its
// writes. What the killed run leaves in the state must still hold.
func (m *model) stateThenKilled(rt *rapid.T) {
	if m.file == nil {
		m.writeFile(rt)
	}
	fl := flags{state: true, skipInvalid: true, concurrency: rapid.IntRange(1, 4).Draw(rt, "--concurrency"), rate: "0", statePath: m.state}
	m.applyWith(rt, m.file, fl, "none")
	// The next night's file: the valid records, with other
	// descriptions and active flags.
	next := &file{format: "json", shape: "indented"}
	for _, r := range m.file.valid() {
		d := rapid.SampledFrom(modelDescs[:5]).Draw(rt, "next description")
		a := rapid.Bool().Draw(rt, "next isActive")
		r.desc, r.active = &d, &a
		next.records = append(next.records, r)
	}
	if len(next.records) == 0 {
		return
	}
	m.nextFile++
	next.path = filepath.Join(m.dir, fmt.Sprintf("file-%d.json", m.nextFile))
	if err := os.WriteFile(next.path, encodeDocuments(rt, next), 0o600); err != nil {
		rt.Fatal(err)
	}
	m.file = next
	m.applyWith(rt, next, fl, "SIGKILL")
}

// applyWith runs apply of f with fl, under trouble ("SIGKILL" is a kill
// by SIGKILL only), and then, if it met any, again as it is, which must
// converge.
func (m *model) applyWith(rt *rapid.T, f *file, fl flags, trouble string) {
	args := append(fl.args(f.path), f.args...)
	var keep map[string]bool
	if fl.state && !fl.refresh {
		keep = m.trusted(rt, f, fl)
	}
	wantCode, wantAfter := m.outcome(f, fl, keep)
	_, readAll := m.outcome(f, fl, nil)
	before := m.want

	hows := kills
	if trouble == "SIGKILL" {
		hows, trouble = kills[:3], "kill"
	}
	if fl.dryRun || wantCode == cmdutil.ExitValidation || wantCode == cmdutil.ExitUsage {
		trouble = "none"
	}
	var out *outside
	if trouble == "outside during" {
		// An element the run does not delete.
		kept := map[string]bool{}
		for code := range wantAfter {
			if _, ok := m.want[code]; ok {
				kept[code] = true
			}
		}
		if out = m.drawOutside(rt, kept); out == nil {
			trouble = "none"
		}
	}
	m.srv.ResetStats()
	m.log = append(m.log, fmt.Sprintf("apply %v, trouble %s", args, trouble))
	holds := m.stateHolds(rt)
	if out != nil {
		delete(holds, out.code)
	}
	least := leastRequests(f, keep, before, wantAfter, fl.pageSize)
	switch trouble {
	case "none":
		res := m.run(rt, context.Background(), nil, args...)
		if res.Code != wantCode {
			rt.Fatalf("%v: exit %d, want %d\n%s", args, res.Code, wantCode, res.ErrOut)
		}
		if fl.dryRun && m.writes() != 0 {
			rt.Fatalf("%v: a dry run sent %d writes", args, m.writes())
		}
	case "faults":
		// Refused writes, which fail a change for certain, are drawn
		// as often as the others together.
		names := slices.Sorted(maps.Keys(faultSets))
		for range len(names) - 2 {
			names = append(names, "writes refused")
		}
		// Lost create answers, which the exit code must not show, as
		// often as three other sets.
		names = append(names, "lost create answers", "lost create answers")
		set := rapid.SampledFrom(names).Draw(rt, "faults")
		m.srv.AddFaults(faultSets[set]...)
		res := m.run(rt, context.Background(), nil, args...)
		m.srv.ClearFaults()
		m.checkExit(rt, fmt.Sprintf("%v under %s", args, set), res.Code, wantCode, res.ErrOut, before, wantAfter, false)
	case "outside during":
		// The run meets the change where it falls: before its list,
		// between its reads and its writes, or among them. The elements
		// no record names end as the change left them; the next run
		// brings the others to the file.
		d := &during{base: m.tr, at: drawCut(rt, least, changes(before, wantAfter), "outside at request"), ch: out}
		res := m.run(rt, context.Background(), d, args...)
		if d.err != nil {
			rt.Fatalf("%s: %v", out.what, d.err)
		}
		if res.Code != wantCode && res.Code != cmdutil.ExitPartial {
			rt.Fatalf("%v with %s in flight: exit %d, want %d\n%s", args, out.what, res.Code, wantCode, res.ErrOut)
		}
		before = before.clone()
		out.apply(before)
		m.checkNamedKept(rt, f, before)
		m.checkOthersKept(rt, f, before, fl.prune)
		m.checkNoDuplicateCreate(rt, m.lastRun, nil)
		m.want = m.held()
		keep = nil
		if fl.state && !fl.refresh {
			keep = m.trusted(rt, f, fl)
		}
		wantCode, wantAfter = m.outcome(f, fl, keep)
		_, readAll = m.outcome(f, fl, nil)
	case "cancel":
		ctx, cancel := context.WithCancel(context.Background())
		at := drawCut(rt, least, changes(before, wantAfter), "cancel at request")
		m.run(rt, ctx, &cut{base: m.tr, at: at, cancel: cancel}, args...)
		cancel()
	case "kill":
		k := kill{at: drawCut(rt, least, changes(before, wantAfter), "kill at request"),
			how: rapid.SampledFrom(hows).Draw(rt, "kill how")}
		code, errOut := m.runKilled(rt, k, args...)
		if strings.HasPrefix(k.how, "SIGTERM") {
			m.checkExit(rt, fmt.Sprintf("%v after %s at request %d", args, k.how, k.at), code, wantCode, errOut, before, wantAfter, true)
		}
	}
	m.checkNamedKept(rt, f, before)
	m.checkOthersKept(rt, f, before, fl.prune)
	cutRun := m.lastRun
	if trouble == "kill" {
		cutRun = ""
	}
	m.checkNoDuplicateCreate(rt, cutRun, nil)
	if fl.state {
		m.checkState(rt, holds)
	}
	if trouble != "none" {
		// The same command again finishes the job; a request of the
		// killed run may commit after it read the list.
		var tr http.RoundTripper
		if m.release != nil {
			tr = &afterList{base: m.tr, m: m}
		}
		m.srv.ResetStats()
		holds := m.stateHolds(rt)
		res := m.run(rt, context.Background(), tr, args...)
		m.commitLate() // the run read no list
		if res.Code != wantCode {
			rt.Fatalf("%v again after %s: exit %d, want %d\n%s", args, trouble, res.Code, wantCode, res.ErrOut)
		}
		m.checkNoDuplicateCreate(rt, m.lastRun, &cutRun)
		if fl.state {
			m.checkState(rt, holds)
		}
		// A cut run may have dropped a trusted entry from the state
		// before changing its element, and the second run then read
		// and repaired its links: either is right.
		held := m.held()
		for code := range keep {
			if held[code].String() == readAll[code].String() {
				wantAfter[code] = readAll[code]
			}
		}
	}
	m.want = wantAfter
}

// runClash runs apply with a file to write that is one it reads or
// another it writes: refused with exit 2 before anything is read or
// sent, the files left as they were.
func (m *model) runClash(rt *rapid.T, clash string, args []string, files ...string) {
	was := map[string]string{}
	for _, p := range files {
		b, _ := os.ReadFile(p)
		was[p] = string(b)
	}
	// Its own requests, by the mark of its run: a request of a run cut
	// short before may still arrive.
	res := m.run(rt, context.Background(), nil, args...)
	m.mu.Lock()
	sent := m.sent[m.lastRun]
	m.mu.Unlock()
	if res.Code != cmdutil.ExitUsage || sent != 0 {
		rt.Fatalf("%s (%v): exit %d, %d requests, want %d and none\n%s", clash, args, res.Code, sent, cmdutil.ExitUsage, res.ErrOut)
	}
	for p, b := range was {
		if now, _ := os.ReadFile(p); string(now) != b {
			rt.Fatalf("%s (%v): %s changed", clash, args, p)
		}
	}
}

// trusted returns the codes whose links apply takes from the state file
// instead of reading them: the state holds the links the record states,
// and the description and active flag the platform holds.
func (m *model) trusted(rt *rapid.T, f *file, fl flags) map[string]bool {
	entries := readState(rt, fl.statePath)
	out := map[string]bool{}
	if fl.verifyAll {
		return out // every one read again
	}
	for _, r := range f.valid() {
		e, ok := entries[r.code]
		cur, exists := m.want[r.code]
		if ok && exists && r.orgsSet && e.BusinessOrganizations != nil && e.IsActive == cur.active && sameText(e.Description, cur.desc) &&
			linkSet(e.BusinessOrganizations) == linkSet(r.orgs) {
			out[r.code] = true
		}
	}
	return out
}

// savePlan saves the plan of the file with --dry-run --out: in the
// model's folder or the shared one, or, refused, over the file read.
func (m *model) savePlan(rt *rapid.T) {
	if m.file == nil {
		m.writeFile(rt)
	}
	fl := m.drawFlags(rt)
	fl.dryRun, fl.detailed, fl.report = true, false, ""
	path := rapid.SampledFrom([]string{filepath.Join(m.dir, "saved.plan"), filepath.Join(m.shared, "saved.plan"), "-f", "a link to -f"}).Draw(rt, "--out")
	args := append(fl.args(m.file.path), m.file.args...)
	switch path {
	case "-f":
		m.runClash(rt, "--out is -f", append(args, "--out", m.file.path), m.file.path)
		return
	case "a link to -f":
		m.nextFile++
		link := filepath.Join(m.dir, fmt.Sprintf("link-%d", m.nextFile))
		if err := os.Symlink(m.file.path, link); err != nil {
			rt.Fatal(err)
		}
		m.runClash(rt, "--out is a link to -f", append(args, "--out", link), m.file.path)
		return
	}
	args = append(args, "--out", path)
	var keep map[string]bool
	if fl.state && !fl.refresh {
		keep = m.trusted(rt, m.file, fl)
	}
	wantCode, _ := m.outcome(m.file, fl, keep)
	m.srv.ResetStats()
	res := m.run(rt, context.Background(), nil, args...)
	if res.Code != wantCode || m.writes() != 0 {
		rt.Fatalf("%v: exit %d (want %d), %d writes\n%s", args, res.Code, wantCode, m.writes(), res.ErrOut)
	}
	if res.Code != 0 {
		return
	}
	sp := &savedPlan{path: path, before: m.want.clone(), file: m.file, prune: fl.prune, keep: keep}
	if len(keep) > 0 {
		sp.stated = readState(rt, fl.statePath)
	}
	var saved struct {
		State *stateVersion `json:"state"`
	}
	if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &saved) != nil {
		rt.Fatalf("the saved plan %s: %v", path, err)
	}
	sp.state = saved.State
	m.plan = sp
}

// planEdits are the edits by hand that the integrity check of a saved
// plan refuses.
var planEdits = []string{"record against after", "repeated step", "delete without --prune"}

// editPlan edits the saved plan at path in the way how, if the plan has
// what the edit needs, and reports whether it did.
func editPlan(rt *rapid.T, path, how string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		rt.Fatal(err)
	}
	var plan map[string]any
	if err := json.Unmarshal(b, &plan); err != nil {
		rt.Fatal(err)
	}
	steps, _ := plan["steps"].([]any)
	edited := false
	switch how {
	case "record against after":
		for _, s := range steps {
			if rec, ok := s.(map[string]any)["record"].(map[string]any); ok {
				rec["description"], edited = "edited by hand", true
				break
			}
		}
	case "repeated step":
		if len(steps) > 0 {
			plan["steps"], edited = append(steps, steps[len(steps)-1]), true
		}
	case "delete without --prune":
		for _, s := range steps {
			if s.(map[string]any)["action"] == "delete" {
				plan["prune"], edited = false, true
			}
		}
	}
	if !edited {
		return false
	}
	if b, err = json.Marshal(plan); err != nil {
		rt.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		rt.Fatal(err)
	}
	return true
}

// runPlan runs the saved plan: refused with exit 2 and nothing sent when
// it was edited by hand, with exit 8 and nothing sent when an element it
// read moved since, else exactly its steps.
func (m *model) runPlan(rt *rapid.T) {
	sp := m.plan
	if sp == nil {
		return
	}
	args := []string{"apply", "--plan", sp.path, "--rate", "0"}
	// With the state, the links the plan took from it are trusted where
	// it still records them as the plan found them; without it, or with
	// a state that moved, they are read and compared.
	withState := rapid.Bool().Draw(rt, "--plan with --state")
	var keep map[string]bool
	if withState {
		args = append(args, "--state", m.state)
		keep = sp.trustedNow(readState(rt, m.state))
	}
	if how := rapid.SampledFrom(append([]string{"", "", ""}, planEdits...)).Draw(rt, "plan edited"); how != "" && editPlan(rt, sp.path, how) {
		m.plan = nil
		m.srv.ResetStats()
		res := m.run(rt, context.Background(), nil, args...)
		if res.Code != cmdutil.ExitUsage || m.writes() != 0 {
			rt.Fatalf("a plan edited by hand (%s): exit %d (want %d), %d writes\n%s", how, res.Code, cmdutil.ExitUsage, m.writes(), res.ErrOut)
		}
		return
	}
	if now := readStateVersion(rt, m.state); withState && sp.state != nil && now != nil && now.Lineage == sp.state.Lineage && now.Applies > sp.state.Applies {
		// Another apply wrote the state since: refused before a read.
		m.srv.ResetStats()
		res := m.run(rt, context.Background(), nil, args...)
		if res.Code != cmdutil.ExitPlanStale || m.writes() != 0 || !strings.Contains(res.ErrOut, "another apply wrote the state since") {
			rt.Fatalf("a plan whose state another apply wrote since: exit %d (want %d), %d writes\n%s", res.Code, cmdutil.ExitPlanStale, m.writes(), res.ErrOut)
		}
		return
	}
	// The steps are the plan's, made with the links it took from the
	// state (sp.keep); the links read now (not keep) are held to what the
	// plan found: the state's, for those it took from the state.
	after := sp.file.expect(sp.before, sp.prune, sp.keep)
	steps := map[string]bool{}
	readLinks := map[string]bool{}
	for code := range after {
		if b, ok := sp.before[code]; !ok || b.String() != after[code].String() {
			steps[code] = true
		}
	}
	for code := range sp.before {
		if _, ok := after[code]; !ok {
			steps[code] = true
		}
	}
	for _, r := range sp.file.valid() {
		readLinks[r.code] = r.orgsSet && !keep[r.code]
	}
	moved := false
	for code := range steps {
		then, was := sp.before[code]
		now, is := m.want[code]
		switch {
		case was != is:
			moved = true
		case !was:
		case !sameText(then.desc, now.desc) || then.active != now.active:
			moved = true
		case readLinks[code] && sp.keep[code]:
			if linkSet(sp.stated[code].BusinessOrganizations) != fmt.Sprint(element{links: now.links}) {
				moved = true
			}
		case readLinks[code] && then.String() != now.String():
			moved = true
		}
	}
	// An element the plan found unchanged is promised as the plan read
	// it too: deleted or changed in its fields since, the plan is stale.
	// (Its links are not read again: later plans verify them.)
	for _, r := range sp.file.valid() {
		then, was := sp.before[r.code]
		now, is := m.want[r.code]
		if !steps[r.code] && was && (!is || !sameText(then.desc, now.desc) || then.active != now.active) {
			moved = true
		}
	}
	m.srv.ResetStats()
	if !moved && rapid.IntRange(0, 2).Draw(rt, "plan under faults") == 0 {
		// Carried out under faults, the plan makes what it can: the
		// exit code says exactly whether it made every step, and nothing
		// is pruned after a failure. A plan made partly is stale.
		set := rapid.SampledFrom(slices.Sorted(maps.Keys(faultSets))).Draw(rt, "plan faults")
		m.srv.AddFaults(faultSets[set]...)
		res := m.run(rt, context.Background(), nil, args...)
		m.srv.ClearFaults()
		want := m.want.clone()
		for code := range steps {
			if a, ok := after[code]; ok {
				for _, r := range sp.file.valid() {
					if r.code == code {
						var cur *element
						if e, ok := want[code]; ok {
							cur = &e
						}
						a = sp.applied(r, cur)
					}
				}
				want[code] = a
			} else {
				delete(want, code)
			}
		}
		m.checkExit(rt, fmt.Sprintf("apply --plan under %s", set), res.Code, 0, res.ErrOut, m.want, want, false)
		m.checkNoDuplicateCreate(rt, m.lastRun, nil)
		m.want, m.plan = m.held(), nil
		return
	}
	res := m.run(rt, context.Background(), nil, args...)
	if moved {
		if res.Code != cmdutil.ExitPlanStale || m.writes() != 0 {
			rt.Fatalf("a stale plan: exit %d (want %d), %d writes\n%s", res.Code, cmdutil.ExitPlanStale, m.writes(), res.ErrOut)
		}
		return
	}
	if res.Code != 0 {
		rt.Fatalf("apply --plan: exit %d\n%s", res.Code, res.ErrOut)
	}
	m.checkNoDuplicateCreate(rt, m.lastRun, nil)
	// Exactly the steps: each record applied to the element as it is
	// now, the deletes done, nothing else touched. The links the plan
	// took from --state are trusted again, as the plan trusted them: they
	// stay as they are.
	for code := range steps {
		if _, ok := after[code]; !ok {
			delete(m.want, code)
			continue
		}
		for _, r := range sp.file.valid() {
			if r.code == code {
				var cur *element
				if e, ok := m.want[code]; ok {
					cur = &e
				}
				m.want[code] = sp.applied(r, cur)
			}
		}
	}
	m.plan = nil
}
