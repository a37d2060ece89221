package apply_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"gopkg.in/yaml.v3"
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
// a code with a slash and one with a space among them.
var (
	modelCodes = []string{"E-1", "E-2", "E-3", "E-4", "E/5", "E 6"}
	modelOrgs  = []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "2000", EntityType: "company"},
		{Code: "B1", EntityType: "branch"}, {Code: "B=2;x", EntityType: "branch"}}
	modelDescs = []string{"Site works", "a, b", `say "hi"`, "Ümlaut & Co", "", "line\nbreak (invalid)"}
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
	code          string
	desc          *string // nil: not stated
	active        *bool   // nil: not stated
	orgs          []sdk.BusinessOrganization
	orgsSet       bool
	invalid       bool
	invalidActive bool // CSV only: an isActive cell that is no boolean
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
	// kind is how a table (format csv) is written: "" comma-separated
	// UTF-8, or as ERP users have it: "xlsx", "windows-1252" (';',
	// read with --encoding), "utf-16" (Excel's Unicode text: TAB, a BOM).
	kind    string
	records []record
}

// readArgs are the flags apply needs to read f.
func (f *file) readArgs() []string {
	if f.kind == "windows-1252" {
		return []string{"--encoding", "windows-1252"}
	}
	return nil
}

func (f *file) valid() []record {
	var out []record
	for _, r := range f.records {
		if !r.invalid {
			out = append(out, r)
		}
	}
	return out
}

func (f *file) invalidCount() int { return len(f.records) - len(f.valid()) }

// expect is what the platform holds once f is applied to p: every valid
// record applied, and with prune every element no record names, valid
// or not, deleted. The elements of keepLinks keep their links: a state
// file holds them as the record states them, and the list shows the
// element as the state recorded it, so they are not read.
func (f *file) expect(p platform, prune bool, keepLinks map[string]bool) platform {
	out := p.clone()
	named := map[string]bool{}
	for _, r := range f.records {
		named[r.code] = true
		if r.invalid {
			continue
		}
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
}

type model struct {
	t        *testing.T
	srv      *wbstest.Server
	other    *sdk.Client
	mode     wbstest.OrgUpdateMode
	want     platform
	dir      string
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
}

func newModel(t *testing.T, rt *rapid.T) *model {
	mode := rapid.SampledFrom([]wbstest.OrgUpdateMode{wbstest.OrgMerge, wbstest.OrgReplace}).Draw(rt, "org update mode")
	srv := wbstest.New(wbstest.WithOrgUpdateMode(mode), wbstest.WithSeed(rapid.Int64().Draw(rt, "server seed")))
	m := &model{t: t, srv: srv, mode: mode, want: platform{}}
	m.ts = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.handling++
		m.mu.Unlock()
		defer func() {
			m.mu.Lock()
			m.handling--
			m.mu.Unlock()
		}()
		srv.ServeHTTP(w, r)
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
	other, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithTransport(tr))
	if err != nil {
		rt.Fatal(err)
	}
	m.dir = t.TempDir()
	m.other, m.state, m.tr = other, filepath.Join(m.dir, "apply.state"), tr
	return m
}

// settle waits until the server handles no request and has read every
// request sent: the client closes its idle connections (one dialed for a
// request given up on joins them late, so again until the end), and the
// server, which reads what each holds before it sees the end, closes them
// all. Waiting for no request alone missed one still on its way to the
// handler.
func (m *model) settle() {
	deadline := time.Now().Add(10 * time.Second)
	for {
		m.tr.CloseIdleConnections()
		m.mu.Lock()
		handling, open := m.handling, m.open
		m.mu.Unlock()
		switch {
		case handling == 0 && open == 0:
			return
		case time.Now().After(deadline):
			m.t.Logf("settle: after 10 s the server still handles %d requests on %d connections", handling, open)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func (m *model) close() {
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
		rt.Fatalf("the platform is not as the model says:\n%s", d)
	}
}

// writeFile writes a random file.
func (m *model) writeFile(rt *rapid.T) {
	format := rapid.SampledFrom([]string{"csv", "json", "ndjson", "yaml"}).Draw(rt, "format")
	codes := rapid.SliceOfNDistinct(rapid.SampledFrom(modelCodes), 1, len(modelCodes), rapid.ID[string]).Draw(rt, "codes")
	// CSV states a field for every record or none; the other formats
	// record by record.
	descCol, activeCol, orgsCol := rapid.Bool().Draw(rt, "description column"), rapid.Bool().Draw(rt, "isActive column"), rapid.Bool().Draw(rt, "links column")
	f := &file{format: format}
	if format == "csv" {
		f.kind = rapid.SampledFrom([]string{"", "xlsx", "windows-1252", "utf-16"}).Draw(rt, "kind")
	}
	for _, code := range codes {
		r := record{code: code}
		stated := func(col bool, name string) bool {
			if format == "csv" {
				return col
			}
			return rapid.Bool().Draw(rt, name)
		}
		if stated(descCol, "states description") {
			d := rapid.SampledFrom(modelDescs).Draw(rt, "description")
			// The platform's limits allow no control character.
			r.desc, r.invalid = &d, strings.ContainsRune(d, '\n')
		}
		if format == "csv" && activeCol || format != "csv" && rapid.Bool().Draw(rt, "states isActive") {
			// An empty CSV cell leaves the flag alone.
			if format != "csv" || rapid.Bool().Draw(rt, "isActive cell filled") {
				a := rapid.Bool().Draw(rt, "isActive")
				r.active = &a
			}
		}
		if stated(orgsCol, "states links") {
			r.orgsSet = true
			r.orgs = rapid.SliceOfDistinct(rapid.SampledFrom(modelOrgs), func(o sdk.BusinessOrganization) string { return notation.FormatOne(o) }).Draw(rt, "links")
		}
		if !r.invalid && rapid.IntRange(0, 5).Draw(rt, "invalid") == 0 {
			switch {
			case r.desc != nil:
				long := strings.Repeat("d", 101)
				r.desc, r.invalid = &long, true
			case format == "csv" && activeCol:
				r.active, r.invalid, r.invalidActive = nil, true, true
			}
		}
		f.records = append(f.records, r)
	}
	m.nextFile++
	ext := map[string]string{"xlsx": "xlsx", "utf-16": "txt"}[f.kind]
	f.path = filepath.Join(m.dir, fmt.Sprintf("file-%d.%s", m.nextFile, cmp.Or(ext, format)))
	if err := os.WriteFile(f.path, encodeFile(rt, f, descCol, activeCol, orgsCol), 0o600); err != nil {
		rt.Fatal(err)
	}
	m.file = f
}

func encodeFile(rt *rapid.T, f *file, descCol, activeCol, orgsCol bool) []byte {
	var b bytes.Buffer
	if f.format == "csv" {
		var rows [][]string
		w := &rowWriter{rows: &rows}
		header := []string{"wbsElementCode"}
		for _, c := range []struct {
			on   bool
			name string
		}{{descCol, "description"}, {activeCol, "isActive"}, {orgsCol, "businessOrganizations"}} {
			if c.on {
				header = append(header, c.name)
			}
		}
		w.Write(header)
		for _, r := range f.records {
			row := []string{r.code}
			if descCol {
				row = append(row, *r.desc)
			}
			if activeCol {
				switch {
				case r.invalidActive:
					row = append(row, "maybe")
				case r.active == nil:
					row = append(row, "")
				default:
					row = append(row, strconv.FormatBool(*r.active))
				}
			}
			if orgsCol {
				row = append(row, notation.Format(r.orgs))
			}
			w.Write(row)
		}
		return encodeTable(rt, f.kind, rows)
	}
	var docs []map[string]any
	for _, r := range f.records {
		d := map[string]any{"wbsElementCode": r.code}
		if r.desc != nil {
			d["description"] = *r.desc
		}
		if r.active != nil {
			d["isActive"] = *r.active
		}
		if r.orgsSet {
			orgs := []map[string]string{}
			for _, o := range r.orgs {
				orgs = append(orgs, map[string]string{"code": o.Code, "entityType": o.EntityType})
			}
			d["businessOrganizations"] = orgs
		}
		docs = append(docs, d)
	}
	switch f.format {
	case "json":
		out, _ := json.MarshalIndent(docs, "", "  ")
		return out
	case "ndjson":
		for _, d := range docs {
			line, _ := json.Marshal(d)
			b.Write(line)
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	out, err := yaml.Marshal(docs)
	if err != nil {
		rt.Fatal(err)
	}
	return out
}

// rowWriter collects the rows of a table.
type rowWriter struct{ rows *[][]string }

func (w *rowWriter) Write(row []string) { *w.rows = append(*w.rows, row) }

// encodeTable writes rows as a file of kind (see file.kind).
func encodeTable(rt *rapid.T, kind string, rows [][]string) []byte {
	if kind == "xlsx" {
		wb := excelize.NewFile()
		defer wb.Close()
		for i, row := range rows {
			for j, cell := range row {
				name, _ := excelize.CoordinatesToCellName(j+1, i+1)
				var err error
				switch {
				case cell == "":
					continue // an empty cell, as a spreadsheet leaves it
				case i > 0 && (cell == "true" || cell == "false") && rows[0][j] == "isActive":
					err = wb.SetCellBool("Sheet1", name, cell == "true")
				default:
					err = wb.SetCellStr("Sheet1", name, cell)
				}
				if err != nil {
					rt.Fatal(err)
				}
			}
		}
		var b bytes.Buffer
		if err := wb.Write(&b); err != nil {
			rt.Fatal(err)
		}
		return b.Bytes()
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Comma = map[string]rune{"windows-1252": ';', "utf-16": '\t'}[kind]
	if w.Comma == 0 {
		w.Comma = ','
	}
	w.WriteAll(rows)
	var enc encoding.Encoding
	switch kind {
	case "windows-1252":
		enc = charmap.Windows1252
	case "utf-16":
		enc = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	default:
		return b.Bytes()
	}
	out, err := enc.NewEncoder().Bytes(b.Bytes())
	if err != nil {
		rt.Fatal(err)
	}
	return out
}

// outsideChange changes the platform through a second client, as another
// person or job would.
func (m *model) outsideChange(rt *rapid.T) {
	ctx := context.Background()
	code := rapid.SampledFrom(modelCodes).Draw(rt, "outside code")
	cur, exists := m.want[code]
	if !exists {
		d := rapid.SampledFrom(modelDescs[:4]).Draw(rt, "outside description")
		links := rapid.SliceOfDistinct(rapid.SampledFrom(modelOrgs), func(o sdk.BusinessOrganization) string { return notation.FormatOne(o) }).Draw(rt, "outside links")
		if _, err := m.other.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: code, Description: &d, BusinessOrganizations: links}); err != nil {
			rt.Fatalf("outside create %q: %v", code, err)
		}
		m.want[code] = record{code: code, desc: &d, orgsSet: true, orgs: links}.applyTo(nil)
		return
	}
	switch rapid.IntRange(0, 3).Draw(rt, "outside change") {
	case 0:
		d := rapid.SampledFrom(modelDescs[:4]).Draw(rt, "outside description")
		a := rapid.Bool().Draw(rt, "outside isActive")
		if _, err := m.other.WBSElements.Update(ctx, code, &sdk.UpdateWBSElementRequest{Description: sdk.Set(d), IsActive: sdk.Set(a)}); err != nil {
			rt.Fatalf("outside update %q: %v", code, err)
		}
		cur.desc, cur.active = &d, a
		m.want[code] = cur
	case 1:
		add := rapid.SliceOfNDistinct(rapid.SampledFrom(modelOrgs), 1, 2, func(o sdk.BusinessOrganization) string { return notation.FormatOne(o) }).Draw(rt, "outside links added")
		if _, err := m.other.WBSElements.Update(ctx, code, &sdk.UpdateWBSElementRequest{BusinessOrganizations: sdk.Set(add)}); err != nil {
			rt.Fatalf("outside links of %q: %v", code, err)
		}
		if m.mode == wbstest.OrgReplace {
			cur.links = map[sdk.BusinessOrganization]bool{}
		}
		for _, o := range add {
			cur.links[o] = true
		}
		m.want[code] = cur
	case 2:
		var have []sdk.BusinessOrganization
		for o := range cur.links {
			have = append(have, o)
		}
		if len(have) == 0 {
			return
		}
		sort.Slice(have, func(i, j int) bool { return notation.FormatOne(have[i]) < notation.FormatOne(have[j]) })
		o := rapid.SampledFrom(have).Draw(rt, "outside link removed")
		if _, err := m.other.WBSElements.DeleteBusinessOrganizations(ctx, code, &sdk.DeleteBusinessOrganizationsRequest{BusinessOrganizations: []sdk.BusinessOrganization{o}}); err != nil {
			rt.Fatalf("outside link removal of %q: %v", code, err)
		}
		delete(cur.links, o)
		m.want[code] = cur
	case 3:
		if _, err := m.other.WBSElements.Delete(ctx, code); err != nil {
			rt.Fatalf("outside delete %q: %v", code, err)
		}
		delete(m.want, code)
	}
}

// flags are the random flags of one apply.
type flags struct {
	state, refresh, prune, skipInvalid, dryRun, detailed bool
	concurrency                                          int
}

func (f flags) args(file string, state string) []string {
	args := []string{"apply", "-f", file, "--rate", "0", "--concurrency", strconv.Itoa(f.concurrency)}
	if f.state {
		args = append(args, "--state", state)
	}
	if f.state && f.refresh {
		args = append(args, "--refresh")
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

func drawFlags(rt *rapid.T) flags {
	return flags{
		state: rapid.Bool().Draw(rt, "--state"), refresh: rapid.IntRange(0, 3).Draw(rt, "--refresh") == 0,
		prune: rapid.Bool().Draw(rt, "--prune"), skipInvalid: rapid.Bool().Draw(rt, "--skip-invalid"),
		dryRun: rapid.IntRange(0, 3).Draw(rt, "--dry-run") == 0, detailed: rapid.Bool().Draw(rt, "--detailed-exitcode"),
		concurrency: rapid.IntRange(1, 4).Draw(rt, "--concurrency"),
	}
}

// outcome is what a run of f with fl must do to the model's platform:
// the exit code and the platform after it.
func (m *model) outcome(f *file, fl flags, keepLinks map[string]bool) (int, platform) {
	switch {
	case f.invalidCount() > 0 && !fl.skipInvalid:
		return cmdutil.ExitValidation, m.want
	case fl.prune && len(f.valid()) == 0:
		return cmdutil.ExitUsage, m.want
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

// faultSets are the faults a run may meet: lost answers after commit,
// 503s, resets, latency.
var faultSets = map[string][]wbstest.FaultRule{
	"lost create answers":   {{Operation: wbstest.OpCreate, Kind: wbstest.FaultDropAfterCommit, Probability: 0.4}},
	"lost update answers":   {{Operation: wbstest.OpUpdate, Kind: wbstest.FaultDropAfterCommit, Probability: 0.4}},
	"503s":                  {{Kind: wbstest.FaultStatus, Status: http.StatusServiceUnavailable, Probability: 0.2}},
	"503s with Retry-After": {{Kind: wbstest.FaultStatus, Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Probability: 0.2}},
	"resets":                {{Kind: wbstest.FaultReset, Probability: 0.15}},
	"latency":               {{Kind: wbstest.FaultLatency, Latency: 2 * time.Millisecond, Probability: 0.5}},
}

// cut ends a run at its at-th request: cancelled (the second signal), or
// killed (that request reaches the platform and commits, and nothing
// after it is sent or answered). With hold, the killed request commits
// only once release closes: late, after the next run read the list.
type cut struct {
	base    http.RoundTripper
	at      int64
	kill    bool
	cancel  context.CancelFunc
	n       atomic.Int64
	late    sync.WaitGroup
	release chan struct{}
}

var errKilled = errors.New("the process was killed")

func (c *cut) RoundTrip(r *http.Request) (*http.Response, error) {
	k := c.n.Add(1)
	switch {
	case k < c.at:
		return c.base.RoundTrip(r)
	case k == c.at && c.kill:
		late := r.Clone(context.Background())
		if r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			late.Body = io.NopCloser(bytes.NewReader(body))
		}
		c.late.Go(func() {
			if c.release != nil {
				<-c.release
			}
			if resp, err := c.base.RoundTrip(late); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
		c.cancel()
		return nil, errKilled
	case k == c.at:
		c.cancel()
		return nil, context.Canceled
	case c.kill:
		return nil, errKilled
	}
	return c.base.RoundTrip(r)
}

// afterList lets the held request of a cut commit once the run it
// carries has read the first page of the element list.
type afterList struct {
	base http.RoundTripper
	cut  *cut
	once sync.Once
}

func (a *afterList) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.base.RoundTrip(r)
	if r.Method == http.MethodGet && r.URL.Path == "/v1/wbs-elements" {
		a.once.Do(func() {
			close(a.cut.release)
			a.cut.late.Wait()
		})
	}
	return resp, err
}

// run runs wbsctl against the model's server; tr, when set, carries the
// requests.
func (m *model) run(ctx context.Context, tr http.RoundTripper, args ...string) cmdtest.Result {
	if tr == nil {
		tr = m.tr
	}
	res := cmdtest.Run{Ctx: ctx, ClientOptions: []sdk.Option{sdk.WithTransport(tr)}}.Do(m.t, m.srv, args...)
	// What the run sent and gave up on is carried out before the next
	// step looks.
	m.settle()
	return res
}

// writes counts the writes the server answered since its last reset.
func serverWrites(srv *wbstest.Server) int {
	st := srv.Stats().Requests
	return st[wbstest.OpCreate] + st[wbstest.OpUpdate] + st[wbstest.OpDelete] + st[wbstest.OpDeleteLinks]
}

// checkNoDuplicateCreate fails when a create was refused: while only
// this tool writes, it never creates what exists.
func (m *model) checkNoDuplicateCreate(rt *rapid.T) {
	j := m.srv.Journal()
	for _, e := range j {
		if e.Operation == wbstest.OpCreate && e.Status == http.StatusBadRequest {
			var seen []string
			for _, o := range j {
				seen = append(seen, fmt.Sprintf("%s %s %s %d fault=%q", o.Operation, o.Method, o.Path, o.Status, o.Fault))
			}
			rt.Fatalf("a create was refused, %s: apply created what existed; the run's requests:\n%s", e.Path, strings.Join(seen, "\n"))
		}
	}
}

// checkNamedKept fails when an element a record names, valid or not, is
// gone although it was there before the run.
func (m *model) checkNamedKept(rt *rapid.T, f *file, before platform) {
	held := m.held()
	for _, r := range f.records {
		if _, was := before[r.code]; was {
			if _, is := held[r.code]; !is {
				rt.Fatalf("%q, named on the file (invalid: %v), was deleted", r.code, r.invalid)
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
	named := map[string]bool{}
	for _, r := range f.records {
		named[r.code] = true
	}
	for code, was := range before {
		if changing[code] || (prune && !named[code]) {
			continue
		}
		if is, ok := held[code]; !ok || is.String() != was.String() {
			rt.Fatalf("%q, which no valid record names, changed: %v, was %v", code, is, was)
		}
	}
}

// apply runs apply with random flags, perhaps under faults or cut short,
// and then, if it was, again as it is, which must converge.
func (m *model) apply(rt *rapid.T) {
	if m.file == nil {
		m.writeFile(rt)
	}
	f := m.file
	fl := drawFlags(rt)
	args := append(fl.args(f.path, m.state), f.readArgs()...)
	var keep map[string]bool
	if fl.state && !fl.refresh {
		keep = m.trusted(rt, f)
	}
	wantCode, wantAfter := m.outcome(f, fl, keep)
	_, readAll := m.outcome(f, fl, nil)
	before := m.want

	trouble := rapid.SampledFrom([]string{"none", "faults", "cancel", "kill", "kill, late commit"}).Draw(rt, "trouble")
	if fl.dryRun || wantCode == cmdutil.ExitValidation || wantCode == cmdutil.ExitUsage {
		trouble = "none"
	}
	m.srv.ResetStats()
	var cutAt *cut
	switch trouble {
	case "none":
		res := m.run(context.Background(), nil, args...)
		if res.Code != wantCode {
			rt.Fatalf("%v: exit %d, want %d\n%s", args, res.Code, wantCode, res.ErrOut)
		}
		if fl.dryRun && serverWrites(m.srv) != 0 {
			rt.Fatalf("%v: a dry run sent %d writes", args, serverWrites(m.srv))
		}
	case "faults":
		names := make([]string, 0, len(faultSets))
		for n := range faultSets {
			names = append(names, n)
		}
		sort.Strings(names)
		set := rapid.SampledFrom(names).Draw(rt, "faults")
		m.srv.AddFaults(faultSets[set]...)
		res := m.run(context.Background(), nil, args...)
		m.srv.ClearFaults()
		if !slices.Contains([]int{wantCode, cmdutil.ExitError, cmdutil.ExitPartial}, res.Code) {
			rt.Fatalf("%v under %s: exit %d\n%s", args, set, res.Code, res.ErrOut)
		}
	default:
		ctx, cancel := context.WithCancel(context.Background())
		cutAt = &cut{base: m.tr, at: int64(rapid.IntRange(1, 20).Draw(rt, "cut at request")), kill: trouble != "cancel", cancel: cancel}
		if trouble == "kill, late commit" {
			cutAt.release = make(chan struct{})
		}
		m.run(ctx, cutAt, args...)
		cancel()
		if cutAt.release == nil {
			cutAt.late.Wait()
		}
	}
	if cutAt == nil || cutAt.release == nil {
		m.checkNamedKept(rt, f, before)
		m.checkOthersKept(rt, f, before, fl.prune)
		m.checkNoDuplicateCreate(rt)
	}
	if trouble != "none" {
		// The same command again finishes the job; a request of the
		// killed run may commit after it read the list.
		var tr http.RoundTripper
		if cutAt != nil && cutAt.release != nil {
			tr = &afterList{base: m.tr, cut: cutAt}
		}
		m.srv.ResetStats()
		res := m.run(context.Background(), tr, args...)
		if cutAt != nil && cutAt.release != nil {
			select {
			case <-cutAt.release:
			default:
				close(cutAt.release) // the run read no list
			}
			cutAt.late.Wait()
		}
		if res.Code != wantCode {
			rt.Fatalf("%v again after %s: exit %d, want %d\n%s", args, trouble, res.Code, wantCode, res.ErrOut)
		}
		if cutAt == nil {
			// After a cut, a request the cut run had on the wire may
			// commit after this run read the list, as after a real
			// kill: its create is then refused, and settled.
			m.checkNoDuplicateCreate(rt)
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

// trusted returns the codes whose links apply takes from the state file
// instead of reading them: the state holds the links the record states,
// and the description and active flag the platform holds.
func (m *model) trusted(rt *rapid.T, f *file) map[string]bool {
	b, err := os.ReadFile(m.state)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var st struct {
		Elements map[string]struct {
			Description           *string                    `json:"description"`
			IsActive              bool                       `json:"isActive"`
			BusinessOrganizations []sdk.BusinessOrganization `json:"businessOrganizations"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		rt.Fatalf("the state file: %v", err)
	}
	out := map[string]bool{}
	for _, r := range f.valid() {
		e, ok := st.Elements[r.code]
		cur, exists := m.want[r.code]
		if !ok || !exists || !r.orgsSet || e.BusinessOrganizations == nil || e.IsActive != cur.active ||
			(e.Description == nil) != (cur.desc == nil) || e.Description != nil && *e.Description != *cur.desc {
			continue
		}
		recorded := record{orgsSet: true, orgs: e.BusinessOrganizations}.applyTo(nil).links
		wanted := r.applyTo(nil).links
		if fmt.Sprint(element{links: recorded}) == fmt.Sprint(element{links: wanted}) {
			out[r.code] = true
		}
	}
	return out
}

// savePlan saves the plan of the file with --dry-run --out.
func (m *model) savePlan(rt *rapid.T) {
	if m.file == nil {
		m.writeFile(rt)
	}
	fl := drawFlags(rt)
	fl.dryRun, fl.detailed, fl.state = true, false, false
	path := filepath.Join(m.dir, "saved.plan")
	args := append(append(fl.args(m.file.path, m.state), m.file.readArgs()...), "--out", path)
	wantCode, _ := m.outcome(m.file, fl, nil)
	m.srv.ResetStats()
	res := m.run(context.Background(), nil, args...)
	if res.Code != wantCode || serverWrites(m.srv) != 0 {
		rt.Fatalf("%v: exit %d (want %d), %d writes\n%s", args, res.Code, wantCode, serverWrites(m.srv), res.ErrOut)
	}
	if res.Code != 0 {
		return
	}
	m.plan = &savedPlan{path: path, before: m.want.clone(), file: m.file, prune: fl.prune}
}

// runPlan runs the saved plan: refused with exit 8 and nothing sent when
// an element it read moved since, else exactly its steps.
func (m *model) runPlan(rt *rapid.T) {
	sp := m.plan
	if sp == nil {
		return
	}
	after := sp.file.expect(sp.before, sp.prune, nil)
	// The steps: the elements the plan changes; a record whose links
	// the plan read (it states links) also holds them to what was read.
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
		readLinks[r.code] = r.orgsSet
	}
	moved := false
	for code := range steps {
		then, was := sp.before[code]
		now, is := m.want[code]
		switch {
		case was != is:
			moved = true
		case !was:
		case (then.desc == nil) != (now.desc == nil) || then.desc != nil && *then.desc != *now.desc || then.active != now.active:
			moved = true
		case readLinks[code] && then.String() != now.String():
			moved = true
		}
	}
	m.srv.ResetStats()
	res := m.run(context.Background(), nil, "apply", "--plan", sp.path, "--rate", "0")
	if moved {
		if res.Code != cmdutil.ExitPlanStale || serverWrites(m.srv) != 0 {
			rt.Fatalf("a stale plan: exit %d (want %d), %d writes\n%s", res.Code, cmdutil.ExitPlanStale, serverWrites(m.srv), res.ErrOut)
		}
		return
	}
	if res.Code != 0 {
		rt.Fatalf("apply --plan: exit %d\n%s", res.Code, res.ErrOut)
	}
	m.checkNoDuplicateCreate(rt)
	// Exactly the steps: each record applied to the element as it is
	// now, the deletes done, nothing else touched.
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
				m.want[code] = r.applyTo(cur)
			}
		}
	}
	m.plan = nil
}
