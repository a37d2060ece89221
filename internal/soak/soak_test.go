package soak

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

const (
	applyClientID     = "integrationhub-soak-apply"
	applyClientSecret = "soak-apply-secret-0123456789abcdef"
	// The readers are another integration on the same platform, with a
	// rate-limit window of their own: they read without pacing and run
	// into the limit, while the apply paces itself under it.
	readerClientID     = "integrationhub-soak-readers"
	readerClientSecret = "soak-readers-secret-0123456789abcdef"

	readerCount = 4
	codeCount   = 40
	// rateLimit is the requests per minute of each integration.
	rateLimit = 6000
	// maxConvergeRuns bounds the runs of the last file after the time is
	// up, until one succeeds for every record.
	maxConvergeRuns = 10
	// settle bounds how long goroutines, connections and handlers get to
	// wind down after the work that drives them stopped.
	settle = 10 * time.Second
)

// faultRules inject every kind of fault into every operation, the token
// exchange included.
func faultRules() []wbstest.FaultRule {
	return []wbstest.FaultRule{
		{Kind: wbstest.FaultStatus, Status: http.StatusInternalServerError, Probability: 0.02},
		{Kind: wbstest.FaultStatus, Status: http.StatusBadGateway, Probability: 0.01},
		{Kind: wbstest.FaultStatus, Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Probability: 0.02},
		{Kind: wbstest.FaultStatus, Status: http.StatusGatewayTimeout, Probability: 0.01},
		{Kind: wbstest.FaultStatus, Status: http.StatusTooManyRequests, Probability: 0.02},
		{Kind: wbstest.FaultReset, Probability: 0.015},
		{Kind: wbstest.FaultDropAfterCommit, Probability: 0.015},
		{Kind: wbstest.FaultLatency, Latency: 10 * time.Millisecond, Probability: 0.05},
	}
}

func soakDuration(t *testing.T) time.Duration {
	if v := os.Getenv("WBSCTL_SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("WBSCTL_SOAK_DURATION=%q: want a duration such as 2m", v)
		}
		return d
	}
	if testing.Short() {
		return 1500 * time.Millisecond
	}
	return 4 * time.Second
}

func soakSeed(t *testing.T) uint64 {
	if v := os.Getenv("WBSCTL_SOAK_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("WBSCTL_SOAK_SEED=%q: want an unsigned integer", v)
		}
		return s
	}
	return uint64(time.Now().UnixNano())
}

// TestSoak applies a changing file again and again with `wbsctl apply
// --prune --yes` while SDK readers read, against one server injecting
// faults, expiring tokens and rate-limiting; see the package doc.
func TestSoak(t *testing.T) {
	d, seed := soakDuration(t), soakSeed(t)
	t.Logf("soak for %s with seed %d (WBSCTL_SOAK_SEED=%d repeats the files and faults)", d, seed, seed)

	// os/signal starts its watcher once per process, at the first
	// signal.Notify; apply's first run would otherwise count it as a leak.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig)
	signal.Stop(sig)
	goroutinesBefore := runtime.NumGoroutine()

	srv := wbstest.New(
		wbstest.WithCredential(applyClientID, applyClientSecret),
		wbstest.WithCredential(readerClientID, readerClientSecret),
		wbstest.WithRateLimit(rateLimit),
		wbstest.WithSeed(int64(seed)),
		wbstest.WithFaults(faultRules()...),
	)
	hs := newCountingServer(srv)
	srv.URL = hs.URL
	serverClosed := false
	defer func() {
		if !serverClosed {
			hs.Close()
		}
	}()

	s := &soak{t: t, srv: srv, hs: hs, dir: t.TempDir(), totals: newTotals()}
	s.applyTransport = http.DefaultTransport.(*http.Transport).Clone()
	readerTransport := http.DefaultTransport.(*http.Transport).Clone()
	codes := soakCodes()
	s.want = map[string]*wbsfile.Record{}

	rd := newReaders()
	s.readers = rd
	t.Cleanup(rd.close) // after a t.Fatal; it does nothing if already closed
	for i := range readerCount {
		c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(readerClientID, readerClientSecret),
			sdk.WithHTTPClient(&http.Client{Transport: readerTransport}),
			sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetryAfter: 5 * time.Millisecond}))
		if err != nil {
			t.Fatal(err)
		}
		rd.start(c, codes, seed+uint64(i))
	}

	// Tokens expire every few seconds, whatever is in flight.
	var expiries atomic.Int64
	expireEvery := min(max(d/8, 250*time.Millisecond), 3*time.Second)
	stopExpiry := make(chan struct{})
	var expiryDone sync.WaitGroup
	expiryDone.Add(1)
	stopExpiring := sync.OnceFunc(func() { close(stopExpiry); expiryDone.Wait() })
	t.Cleanup(stopExpiring)
	go func() {
		defer expiryDone.Done()
		tick := time.NewTicker(expireEvery)
		defer tick.Stop()
		for {
			select {
			case <-stopExpiry:
				return
			case <-tick.C:
				srv.ExpireTokens()
				expiries.Add(1)
			}
		}
	}()

	start := time.Now()
	s.nextSample = start
	rng := rand.New(rand.NewPCG(seed, 0xf11e))
	var last []wbsfile.Record
	for n := 1; time.Since(start) < d; n++ {
		last = s.nextFile(rng, codes)
		s.round(n, last)
	}
	// The time is up: apply the last file until a run succeeds for every
	// record, as a user would after a partial failure.
	converged := false
	for k := 0; k < maxConvergeRuns && !converged && !t.Failed(); k++ {
		converged = s.round(s.totals.rounds+1, last)
	}
	if !converged && !t.Failed() {
		t.Errorf("the last file was not applied without failure in %d further runs", maxConvergeRuns)
	}
	elapsed := time.Since(start)

	rd.close()
	stopExpiring()
	s.checkpoint(nil, nil)
	s.checkState(last)

	// Connections: once the clients close their idle ones, the server
	// holds none; a connection still open is a request still running.
	s.applyTransport.CloseIdleConnections()
	readerTransport.CloseIdleConnections()
	if !eventually(settle, func() bool { return hs.open() == 0 }) {
		t.Errorf("the server still holds %d connections after the clients closed their idle ones", hs.open())
	}
	openAfter := hs.open()
	hs.Close()
	serverClosed = true
	if !eventually(settle, func() bool { return runtime.NumGoroutine() <= goroutinesBefore }) {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after\n%s", goroutinesBefore, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
	goroutinesAfter := runtime.NumGoroutine()

	tt := s.totals
	if tt.lost > 0 {
		t.Errorf("%d records lost", tt.lost)
	}
	if tt.unmatched > 0 {
		t.Errorf("%d failures reported that the server never returned", tt.unmatched)
	}
	if tt.creates != tt.createsNeeded {
		t.Errorf("the server stored %d creates, the files needed %d", tt.creates, tt.createsNeeded)
	}
	if tt.duplicateCreates > 0 {
		t.Errorf("%d creates were refused as duplicates", tt.duplicateCreates)
	}
	heapFirst, heapLast := s.heapSteady, s.heapLast
	if heapFirst == 0 {
		heapFirst = s.heapLast
	}
	if limit := 2*heapFirst + 8<<20; heapLast > limit {
		t.Errorf("heap grew from %s to %s (limit %s)", mib(heapFirst), mib(heapLast), mib(limit))
	}

	figures := [][2]string{
		{"duration", fmt.Sprintf("%s (seed %d)", elapsed.Round(time.Millisecond), seed)},
		{"apply rounds", fmt.Sprintf("%d (%d runs failed before any change; the slowest took %s)", tt.rounds, tt.runsFailed, tt.slowestRound.Round(time.Millisecond))},
		{"records applied", fmt.Sprintf("%d (%d failed, retried in later rounds)", tt.recordsApplied, tt.recordsFailed)},
		{"reader operations", fmt.Sprintf("%d (%d lookups of absent codes)", rd.ops.Load(), rd.notFound.Load())},
		{"requests served", fmt.Sprint(tt.requests)},
		{"faults injected", tt.faultString()},
		{"rate-limit 429s", fmt.Sprintf("%d (%d to the apply)", tt.rateLimited, tt.rateLimitedApply)},
		{"token expiries", fmt.Sprintf("%d (%d token exchanges)", expiries.Load(), tt.tokenExchanges)},
		{"failures reported", fmt.Sprintf("%d (%d matched, %d unmatched; %d without an answer, each an injected reset or drop)",
			tt.failures, tt.failures-tt.unmatched, tt.unmatched, tt.noAnswer)},
		{"records lost", fmt.Sprint(tt.lost)},
		{"creates", fmt.Sprintf("%d stored, %d needed, %d duplicates", tt.creates, tt.createsNeeded, tt.duplicateCreates)},
		{"goroutines", fmt.Sprintf("%d before, %d after", goroutinesBefore, goroutinesAfter)},
		{"connections", fmt.Sprintf("%d at the peak, %d after", hs.peakOpen.Load(), openAfter)},
		{"heap", fmt.Sprintf("%s first, %s last", mib(heapFirst), mib(heapLast))},
	}
	var block strings.Builder
	line := make([]string, len(figures))
	for i, f := range figures {
		fmt.Fprintf(&block, "\n  %-18s %s", f[0]+":", f[1])
		line[i] = f[0] + ": " + f[1]
	}
	t.Logf("soak summary:%s", block.String())
	if testing.Verbose() {
		fmt.Println("soak: " + strings.Join(line, "; "))
	}
}

// soak is the state of one soak run.
type soak struct {
	t              *testing.T
	srv            *wbstest.Server
	hs             *countingServer
	readers        *readers
	applyTransport *http.Transport
	dir            string
	// want is the desired state the files are drawn from; a code without
	// a record is absent.
	want   map[string]*wbsfile.Record
	totals *totals

	nextSample           time.Time
	heapSteady, heapLast uint64
	samples              int
}

func soakCodes() []string {
	codes := make([]string, 0, codeCount)
	for i := range codeCount {
		switch i % 10 {
		case 7:
			// Codes that need escaping in a path.
			codes = append(codes, fmt.Sprintf("SK/%03d", i))
		case 8:
			codes = append(codes, fmt.Sprintf("SK Bé %03d", i))
		default:
			codes = append(codes, fmt.Sprintf("SK-%03d", i))
		}
	}
	return codes
}

var (
	descriptions  = []string{"", "Site preparation", "Foundations", "Béton armé, 2ᵉ tranche", strings.Repeat("d", 100)}
	organizations = []sdk.BusinessOrganization{
		{EntityType: "company", Code: "1000"}, {EntityType: "company", Code: "2000"},
		{EntityType: "branch", Code: "B1"}, {EntityType: "plant", Code: "P;1"}, {EntityType: "purchasingOrg", Code: "PO=1"},
	}
	formats = []wbsfile.Format{wbsfile.FormatCSV, wbsfile.FormatJSON, wbsfile.FormatNDJSON, wbsfile.FormatYAML}
)

// nextFile changes the desired state a little: elements come and go,
// descriptions, flags and links change. It returns the records in a
// shuffled order.
func (s *soak) nextFile(rng *rand.Rand, codes []string) []wbsfile.Record {
	for _, code := range codes {
		r := s.want[code]
		switch {
		case r == nil && rng.Float64() < 0.3:
			r = &wbsfile.Record{Code: code}
			s.want[code] = r
			reroll(rng, r, 1)
		case r != nil && rng.Float64() < 0.1:
			delete(s.want, code)
		case r != nil:
			reroll(rng, r, 0.25)
		}
	}
	if len(s.want) == 0 {
		r := &wbsfile.Record{Code: codes[0]}
		reroll(rng, r, 1)
		s.want[codes[0]] = r
	}
	recs := make([]wbsfile.Record, 0, len(s.want))
	for _, r := range s.want {
		recs = append(recs, *r)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Code < recs[j].Code })
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	return recs
}

// reroll changes each field of r with probability p.
func reroll(rng *rand.Rand, r *wbsfile.Record, p float64) {
	if rng.Float64() < p {
		r.Description = sdk.Ptr(descriptions[rng.IntN(len(descriptions))])
	}
	if rng.Float64() < p {
		r.IsActive = sdk.Ptr(rng.IntN(3) > 0)
	}
	if rng.Float64() < p {
		r.Organizations, r.OrganizationsSet = []sdk.BusinessOrganization{}, true
		for _, o := range organizations {
			if rng.IntN(3) == 0 {
				r.Organizations = append(r.Organizations, o)
			}
		}
	}
}

// round applies recs once and checks the outcome; it reports whether
// every record succeeded.
func (s *soak) round(n int, recs []wbsfile.Record) bool {
	t := s.t
	s.totals.rounds++
	format := formats[n%len(formats)]
	file := filepath.Join(s.dir, "elements."+string(format))
	report := filepath.Join(s.dir, "report.ndjson")
	var buf bytes.Buffer
	if err := wbsfile.Write(&buf, format, recs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(report)
	// Both ways of taking a list of links in an update, in turn.
	s.srv.SetOrgUpdateMode(wbstest.OrgUpdateMode(n % 2))
	before := s.srv.Elements()

	started := time.Now()
	res := cmdtest.Run{
		Env: map[string]string{
			"WBSCTL_CLIENT_ID": applyClientID, "WBSCTL_CLIENT_SECRET": applyClientSecret,
			// One token cache for every run, as on a machine running
			// wbsctl again and again.
			"XDG_CACHE_HOME": filepath.Join(s.dir, "cache"), "XDG_CONFIG_HOME": filepath.Join(s.dir, "config"),
		},
		Transport: s.applyTransport,
	}.Do(t, s.srv, "apply", "-f", file, "--prune", "--yes", "--report", report, "--rate", "0")
	s.totals.slowestRound = max(s.totals.slowestRound, time.Since(started))

	var results []engine.Result
	var runFailure *failure
	switch res.Code {
	case cmdutil.ExitOK, cmdutil.ExitPartial:
		results = readReport(t, report)
	default:
		// The run stopped before changing anything: reading the state
		// failed after its retries.
		s.totals.runsFailed++
		t.Logf("round %d: the run failed before changing anything, exit %d: %s", n, res.Code, strings.TrimSpace(res.ErrOut))
		f := textFailure("apply run", res.ErrOut, 0, "")
		runFailure = &f
	}
	s.checkpoint(results, runFailure)

	if runFailure != nil {
		if after := s.srv.Elements(); !equalElements(before, after) {
			t.Errorf("round %d: the run failed (exit %d) yet changed the platform: %s", n, res.Code, res.ErrOut)
		}
		return false
	}
	return s.checkResults(n, recs, results, before) && res.Code == cmdutil.ExitOK
}

// checkpoint waits until nothing runs (the apply has returned, the
// readers are paused and the server has answered every request), takes
// the journal and counters since the last checkpoint, and matches the
// failures reported against them.
func (s *soak) checkpoint(results []engine.Result, runFailure *failure) {
	t := s.t
	s.readers.pause()
	if !s.hs.waitIdle(settle) {
		s.readers.resume()
		t.Fatalf("requests still in the server %s after the clients returned", settle)
	}
	journal, stats := s.srv.Journal(), s.srv.Stats()
	s.srv.ResetStats()
	readerErrs := s.readers.takeErrors()
	if now := time.Now(); !now.Before(s.nextSample) {
		// Sampled with nothing running, so that only what stays is seen.
		s.heapLast = heapAlloc()
		s.samples++
		// The first samples see the process warm up: buffers, pools and
		// the transports' connections grow to their working size.
		if s.samples == 3 {
			s.heapSteady = s.heapLast
		}
		s.nextSample = now.Add(200 * time.Millisecond)
	}
	s.readers.resume()

	tt := s.totals
	tt.add(stats, journal)
	w := newWindow(journal)
	var failures []failure
	for _, r := range results {
		if r.Status == engine.StatusFailed {
			t.Logf("apply: line %d (%q): %s failed: %d %s", r.Line, r.Code, r.Action, r.HTTPStatus, r.Detail)
			failures = append(failures, textFailure("apply "+r.Action.String()+" "+strconv.Quote(r.Code), r.Detail, r.HTTPStatus, r.CorrelationID))
		}
	}
	if runFailure != nil {
		failures = append(failures, *runFailure)
	}
	for _, err := range readerErrs {
		f := readerFailure(err)
		if f.status == http.StatusNotFound {
			// A lookup of a code pruned, or not created yet: an answer
			// like any other, matched but not a failure.
			s.readers.notFound.Add(1)
			if ok, _ := w.match(f); !ok {
				tt.unmatched++
				t.Errorf("reader: a 404 the server never returned: %s", f.text)
			}
			continue
		}
		failures = append(failures, f)
	}
	for _, f := range failures {
		tt.failures++
		ok, noAnswer := w.match(f)
		if noAnswer {
			tt.noAnswer++
		}
		if !ok {
			tt.unmatched++
			t.Errorf("%s: a failure the server never returned (status %d, correlation id %q): %s", f.source, f.status, f.correlationID, f.text)
		}
	}
	for _, e := range journal {
		if e.Operation == wbstest.OpCreate && (e.Status == http.StatusConflict || e.Status == http.StatusBadRequest) {
			tt.duplicateCreates++
			t.Errorf("a create was answered %d (correlation id %s): the element existed, so it was created twice", e.Status, e.CorrelationID)
		}
	}

}

// checkResults checks a run's report against the file and the state the
// run left; it reports whether every record succeeded.
func (s *soak) checkResults(n int, recs []wbsfile.Record, results []engine.Result, before []wbstest.Element) bool {
	t := s.t
	tt := s.totals
	after := byCode(s.srv.Elements())
	had := byCode(before)
	byLine := map[int]engine.Result{}
	for _, r := range results {
		switch {
		case r.Line > 0:
			byLine[r.Line] = r
		case r.Action == engine.ActionDelete && r.Status == engine.StatusOK:
			if _, ok := after[r.Code]; ok {
				t.Errorf("round %d: %q reported deleted, still there", n, r.Code)
			}
		case r.Action == engine.ActionDelete && r.Status == engine.StatusSkipped && r.Detail != "":
			t.Errorf("round %d: prune of %q skipped: %s", n, r.Code, r.Detail)
		}
	}
	// The records' lines, in the order Parse gives them: read the file
	// back rather than guess each format's line numbers.
	parsed := parseFile(t, filepath.Join(s.dir, "elements."+string(formats[n%len(formats)])), formats[n%len(formats)])
	allOK := true
	for _, rec := range parsed {
		r, ok := byLine[int(rec.Line)]
		switch {
		case !ok || r.Code != rec.Code:
			tt.lost++
			t.Errorf("round %d: line %d (%q) has no result in the report", n, rec.Line, rec.Code)
			continue
		case r.Status == engine.StatusFailed:
			tt.recordsFailed++
			allOK = false
		case r.Status != engine.StatusOK:
			tt.lost++
			t.Errorf("round %d: line %d (%q) ended %s: %s", n, rec.Line, rec.Code, r.Status, r.Detail)
			continue
		default:
			tt.recordsApplied++
			if el, ok := after[rec.Code]; !ok || !matches(rec, el) {
				tt.lost++
				t.Errorf("round %d: %q reported %s (%s), but the platform holds %+v (present %v)", n, rec.Code, r.Status, r.Action, describe(el), ok)
			}
		}
		if r.Action == engine.ActionCreate {
			if _, existed := had[rec.Code]; existed {
				t.Errorf("round %d: %q planned as a create but existed", n, rec.Code)
			}
			if _, ok := after[rec.Code]; ok {
				tt.createsNeeded++
			}
		}
	}
	if len(recs) != len(parsed) {
		t.Errorf("round %d: %d records written, %d read back", n, len(recs), len(parsed))
	}
	return allOK
}

// checkState compares the platform with the last file, exactly.
func (s *soak) checkState(last []wbsfile.Record) {
	t := s.t
	have := byCode(s.srv.Elements())
	for _, rec := range last {
		el, ok := have[rec.Code]
		if !ok {
			t.Errorf("final state: %q missing", rec.Code)
			continue
		}
		if !matches(rec, el) {
			t.Errorf("final state: %q is %s, the file says %s", rec.Code, describe(el), describeRecord(rec))
		}
		delete(have, rec.Code)
	}
	for code := range have {
		t.Errorf("final state: %q is not in the last file", code)
	}
}

func parseFile(t *testing.T, path string, format wbsfile.Format) []wbsfile.Record {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parsed, err := wbsfile.Parse(f, format)
	if err != nil || len(parsed.Problems) > 0 {
		t.Fatalf("%s: %v %v", path, err, parsed.Problems)
	}
	return parsed.Records
}

func readReport(t *testing.T, path string) []engine.Result {
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	defer f.Close()
	var results []engine.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte(`{"summary"`)) {
			continue
		}
		var r engine.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("report line %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return results
}

// matches reports whether el holds what rec states; every field is
// stated in the soak's files, and an empty description is none.
func matches(rec wbsfile.Record, el wbstest.Element) bool {
	if deref(rec.Description) != deref(el.Description) || rec.IsActive == nil || *rec.IsActive != el.IsActive {
		return false
	}
	want := make([]string, len(rec.Organizations))
	for i, o := range rec.Organizations {
		want[i] = o.EntityType + "=" + o.Code
	}
	have := make([]string, len(el.BusinessOrganizations))
	for i, o := range el.BusinessOrganizations {
		have[i] = o.EntityType + "=" + o.Code
	}
	slices.Sort(want)
	slices.Sort(have)
	return slices.Equal(want, have)
}

func describe(el wbstest.Element) string {
	return fmt.Sprintf("{description %q, active %v, links %v}", deref(el.Description), el.IsActive, el.BusinessOrganizations)
}

func describeRecord(r wbsfile.Record) string {
	return fmt.Sprintf("{description %q, active %v, links %v}", deref(r.Description), r.IsActive != nil && *r.IsActive, r.Organizations)
}

func equalElements(a, b []wbstest.Element) bool {
	return slices.EqualFunc(a, b, func(x, y wbstest.Element) bool {
		return x.Code == y.Code && deref(x.Description) == deref(y.Description) && x.IsActive == y.IsActive &&
			slices.Equal(x.BusinessOrganizations, y.BusinessOrganizations)
	})
}

func byCode(els []wbstest.Element) map[string]wbstest.Element {
	m := make(map[string]wbstest.Element, len(els))
	for _, e := range els {
		m[e.Code] = e
	}
	return m
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func mib(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// totals add up the checkpoints.
type totals struct {
	rounds, runsFailed                      int
	recordsApplied, recordsFailed           int
	requests, rateLimited, rateLimitedApply int
	tokenExchanges                          int
	faults                                  map[string]int
	creates, createsNeeded                  int
	duplicateCreates                        int
	failures, unmatched, noAnswer           int
	lost                                    int
	slowestRound                            time.Duration
}

func newTotals() *totals { return &totals{faults: map[string]int{}} }

// faultNames are the faults in the order the summary gives them.
var faultNames = []string{"500", "502", "503+Retry-After", "504", "429", "reset", "drop-after-commit", "latency"}

func (tt *totals) add(st wbstest.Stats, journal []wbstest.JournalEntry) {
	tt.requests += len(journal)
	tt.rateLimited += st.RateLimited
	for _, e := range journal {
		if e.Status == http.StatusTooManyRequests && e.Fault == "" && e.ClientID == applyClientID {
			tt.rateLimitedApply++
		}
	}
	tt.tokenExchanges += st.TokenExchanges
	tt.creates += st.Creates
	for _, e := range journal {
		switch e.Fault {
		case "":
		case wbstest.FaultStatus:
			name := strconv.Itoa(e.Status)
			if e.Status == http.StatusServiceUnavailable {
				name += "+Retry-After"
			}
			tt.faults[name]++
		default:
			tt.faults[string(e.Fault)]++
		}
	}
}

func (tt *totals) faultString() string {
	parts := make([]string, 0, len(faultNames))
	for _, name := range faultNames {
		parts = append(parts, fmt.Sprintf("%s %d", name, tt.faults[name]))
	}
	return strings.Join(parts, ", ")
}
