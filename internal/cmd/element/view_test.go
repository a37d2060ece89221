package element_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// viewServer holds A, active with a description and two organizations,
// B, inactive with neither, and C.
func viewServer(t *testing.T) *wbstest.Server {
	srv := wbstest.Start(t)
	d := "Site prep"
	srv.Put(
		wbstest.Element{Code: "A", Description: &d, IsActive: true,
			BusinessOrganizations: []wbstest.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B=1", EntityType: "branch"}}},
		wbstest.Element{Code: "B"},
		wbstest.Element{Code: "C", IsActive: true},
	)
	return srv
}

// View shows the elements named, in the order given, with their
// organizations, in every output mode of list.
func TestViewFormatsAndModes(t *testing.T) {
	srv := viewServer(t)
	aJSON := `{"wbsElementCode":"A","description":"Site prep","isActive":true,"businessOrganizations":[{"code":"1000","entityType":"company"},{"code":"B=1","entityType":"branch"}]}`
	bJSON := `{"wbsElementCode":"B","description":null,"isActive":false,"businessOrganizations":[]}`
	tests := []struct {
		name string
		tty  bool
		args []string
		want string
	}{
		{"pipe", false, nil, "CODE\tDESCRIPTION\tACTIVE\tORGANIZATIONS\nB\t\tfalse\t\nA\tSite prep\ttrue\tcompany=1000;branch=B\\=1\n"},
		{"pipe no headers", false, []string{"--no-headers"}, "B\t\tfalse\t\nA\tSite prep\ttrue\tcompany=1000;branch=B\\=1\n"},
		{"terminal table", true, nil, " CODE  DESCRIPTION  ACTIVE       ORGANIZATIONS       \n" +
			" B                  false                            \n" +
			" A     Site prep    true    company=1000;branch=B\\=1 \n"},
		{"table on a pipe", false, []string{"-o", "table"}, " CODE  DESCRIPTION  ACTIVE       ORGANIZATIONS       \n" +
			" B                  false                            \n" +
			" A     Site prep    true    company=1000;branch=B\\=1 \n"},
		{"csv", false, []string{"-o", "csv"}, "CODE,DESCRIPTION,ACTIVE,ORGANIZATIONS\nB,,false,\nA,Site prep,true,company=1000;branch=B\\=1\n"},
		{"ndjson", false, []string{"-o", "ndjson"}, bJSON + "\n" + aJSON + "\n"},
		{"yaml", false, []string{"-o", "yaml"}, "- businessOrganizations: []\n  description: null\n  isActive: false\n  wbsElementCode: B\n" +
			"- businessOrganizations:\n    - code: \"1000\"\n      entityType: company\n    - code: B=1\n      entityType: branch\n  description: Site prep\n  isActive: true\n  wbsElementCode: A\n"},
		{"jq", false, []string{"--jq", ".[] | [.wbsElementCode, (.businessOrganizations | length)] | @tsv"}, "B\t0\nA\t2\n"},
		{"template", false, []string{"--template", "{{range .}}{{.wbsElementCode}}:{{range .businessOrganizations}}{{.entityType}}={{.code}},{{end}};{{end}}"}, "B:;A:company=1000,branch=B=1,;"},
		{"a code given twice is shown once", false, []string{"A", "--no-headers"}, "B\t\tfalse\t\nA\tSite prep\ttrue\tcompany=1000;branch=B\\=1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, srv, tt.tty, "", append([]string{"element", "view", "B", "A"}, tt.args...)...)
			if r.Code != 0 || r.Out != tt.want {
				t.Fatalf("exit %d, out:\n%q\nwant:\n%q\nstderr: %s", r.Code, r.Out, tt.want, r.ErrOut)
			}
		})
	}
	r := run(t, srv, false, "", "element", "view", "B", "A", "-o", "json")
	var got []json.RawMessage
	if err := json.Unmarshal([]byte(r.Out), &got); err != nil || len(got) != 2 || compact(t, got[0]) != bJSON || compact(t, got[1]) != aJSON {
		t.Fatalf("json: %v %s", err, r.Out)
	}
	// One code is a list of one, as several are: a script reads one shape.
	r = run(t, srv, false, "", "element", "view", "C", "-o", "json", "--jq", "length, .[0].wbsElementCode")
	if r.Code != 0 || r.Out != "1\nC\n" {
		t.Fatalf("one code as JSON: %q", r.Out)
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	var b strings.Builder
	if err := json.NewEncoder(&b).Encode(raw); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

// `element get` is view: the name people and other CLIs reach for first.
func TestViewGetAlias(t *testing.T) {
	srv := viewServer(t)
	view := run(t, srv, false, "", "element", "view", "A", "C")
	get := run(t, srv, false, "", "element", "get", "A", "C")
	if get.Code != 0 || get.Out != view.Out || !strings.HasPrefix(get.Out, "CODE\t") {
		t.Fatalf("get: exit %d, %q; view: %q", get.Code, get.Out, view.Out)
	}
	show := run(t, srv, false, "", "element", "show", "A")
	if show.Code != cmdutil.ExitUsage || !strings.Contains(show.ErrOut, "view") {
		t.Fatalf("show: exit %d, no word of view: %q", show.Code, show.ErrOut)
	}
}

// The note of what a view costs is said once, on a terminal and on a
// pipe, and --quiet leaves it out.
func TestViewCostNote(t *testing.T) {
	srv := viewServer(t)
	for _, tty := range []bool{true, false} {
		r := run(t, srv, tty, "", "element", "view", "A", "B", "C")
		if r.Code != 0 || strings.Count(r.ErrOut, "note:") != 1 || !strings.Contains(r.ErrOut, "no read of one element") ||
			!strings.Contains(r.ErrOut, "N/100 requests") {
			t.Fatalf("terminal %v: exit %d, stderr %q", tty, r.Code, r.ErrOut)
		}
	}
	for _, q := range []string{"-q", "--quiet"} {
		if r := run(t, srv, false, "", "element", "view", "A", q); r.Code != 0 || r.ErrOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", q, r.Code, r.ErrOut)
		}
	}
}

// View reads the element list until it has found every code, and no
// page further: an element on page 1 of a list of 3 pages costs the
// token exchange, one page of the list and one of its organizations.
func TestViewStopsReadingOnceFound(t *testing.T) {
	srv := wbstest.Start(t)
	var many []wbstest.BusinessOrganization
	for i := range 150 {
		many = append(many, wbstest.BusinessOrganization{Code: fmt.Sprint(i), EntityType: "company"})
	}
	for i := range 250 { // 3 pages of 100
		el := wbstest.Element{Code: fmt.Sprintf("E%03d", i), IsActive: true}
		if i == 200 {
			el.BusinessOrganizations = many
		}
		srv.Put(el)
	}
	tests := []struct {
		name                 string
		codes                []string
		exit                 int
		lists, links, listed int
	}{
		{"page 1", []string{"E005"}, 0, 1, 1, 1},
		{"last of page 1", []string{"E099"}, 0, 1, 1, 1},
		{"page 2", []string{"E150"}, 0, 2, 1, 1},
		{"pages 1 and 3", []string{"E249", "E005"}, 0, 3, 2, 2},
		{"150 organizations", []string{"E200"}, 0, 3, 2, 1},
		{"not there", []string{"NOPE"}, cmdutil.ExitNotFound, 3, 0, 0},
		{"one there, one not", []string{"E005", "NOPE"}, cmdutil.ExitNotFound, 3, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.ResetStats()
			r := run(t, srv, false, "", append([]string{"element", "view", "-o", "ndjson"}, tt.codes...)...)
			st := srv.Stats()
			if r.Code != tt.exit || strings.Count(r.Out, "\n") != tt.listed {
				t.Fatalf("exit %d (want %d), %d elements shown (want %d): %s", r.Code, tt.exit, strings.Count(r.Out, "\n"), tt.listed, r.ErrOut)
			}
			if st.Requests[wbstest.OpToken] != 1 || st.Requests[wbstest.OpList] != tt.lists || st.Requests[wbstest.OpListLinks] != tt.links {
				t.Fatalf("%d token exchanges, %d list pages, %d organization pages; want 1, %d, %d",
					st.Requests[wbstest.OpToken], st.Requests[wbstest.OpList], st.Requests[wbstest.OpListLinks], tt.lists, tt.links)
			}
			if total := len(srv.Journal()); total != 1+tt.lists+tt.links {
				t.Fatalf("%d requests in all, want %d", total, 1+tt.lists+tt.links)
			}
		})
	}
	r := run(t, srv, false, "", "element", "view", "E200", "--jq", ".[0].businessOrganizations | length")
	if r.Out != "150\n" {
		t.Fatalf("organizations of two pages: %q", r.Out)
	}
}

// A code the list does not hold exits 3, naming it, after the elements
// found are shown.
func TestViewNotFound(t *testing.T) {
	srv := viewServer(t)
	r := run(t, srv, false, "", "element", "view", "A", "NOPE", "C", "--no-headers")
	if r.Code != cmdutil.ExitNotFound || r.Out != "A\tSite prep\ttrue\tcompany=1000;branch=B\\=1\nC\t\ttrue\t\n" ||
		!strings.Contains(r.ErrOut, `element "NOPE" not found: the 3 elements listed hold no such code`) {
		t.Fatalf("exit %d, out %q, stderr %q", r.Code, r.Out, r.ErrOut)
	}
	r = run(t, srv, false, "", "element", "get", "X", "Y", "-q")
	if r.Code != cmdutil.ExitNotFound || r.Out != "" ||
		r.ErrOut != "error: elements \"X\", \"Y\" not found: the 3 elements listed hold none of those codes\n" {
		t.Fatalf("two codes: exit %d, out %q, stderr %q", r.Code, r.Out, r.ErrOut)
	}
	r = run(t, srv, false, "", "element", "view", "NOPE", "-q", "-o", "json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.ErrOut), &doc); err != nil || r.Code != cmdutil.ExitNotFound || r.Out != "" ||
		doc["exitCode"] != float64(cmdutil.ExitNotFound) || !strings.Contains(doc["error"].(string), `"NOPE"`) {
		t.Fatalf("-o json: exit %d, out %q, stderr %q", r.Code, r.Out, r.ErrOut)
	}
	empty := wbstest.Start(t)
	if r := run(t, empty, false, "", "element", "view", "A", "-q"); r.Code != cmdutil.ExitNotFound || !strings.Contains(r.ErrOut, "the element list is empty") {
		t.Fatalf("an empty list: exit %d, %q", r.Code, r.ErrOut)
	}
	if r := run(t, srv, false, "", "element", "view"); r.Code != cmdutil.ExitUsage {
		t.Fatalf("no code: exit %d", r.Code)
	}
}

// An element whose code, description and organizations would take over
// a terminal is shown escaped, in every format, as list shows it; so is
// a code that is not found.
func TestViewEscapesOnATerminal(t *testing.T) {
	srv := wbstest.Start(t)
	d := hostile
	srv.Put(wbstest.Element{Code: "P-" + hostile, Description: &d, IsActive: true,
		BusinessOrganizations: []wbstest.BusinessOrganization{{Code: hostile, EntityType: hostile}}})
	for _, o := range [][]string{{}, {"-o", "table"}, {"-o", "csv"}, {"-o", "json"}, {"-o", "yaml"}, {"-o", "ndjson"},
		{"--jq", ".[] | .businessOrganizations[0].code"}, {"--template", "{{range .}}{{.description}}{{end}}"}} {
		r := run(t, srv, true, "", append([]string{"element", "view", "P-" + hostile}, o...)...)
		if r.Code != 0 || raw(r.Out) || raw(r.ErrOut) || !strings.Contains(r.Out, "owned") {
			t.Errorf("view %v on a terminal: exit %d, %q, stderr %q", o, r.Code, r.Out, r.ErrOut)
		}
	}
	r := run(t, srv, true, "", "element", "view", "P-"+hostile)
	if !strings.Contains(r.Out, `P-x\x1b]0;owned\ay\x1b[2Jz\u202eq`) {
		t.Errorf("the table does not escape as list does: %q", r.Out)
	}
	r = run(t, srv, false, "", "element", "view", "P-"+hostile, "-o", "csv")
	if r.Code != 0 || strings.Count(r.Out, hostile) != 2 {
		t.Errorf("csv on a pipe is not exact: %q", r.Out)
	}
	for _, tty := range []bool{true, false} {
		r = run(t, srv, tty, "", "element", "view", "N-"+hostile)
		if r.Code != cmdutil.ExitNotFound || raw(r.ErrOut) || !strings.Contains(r.ErrOut, `N-x\x1b]0;owned\ay`) {
			t.Errorf("terminal %v: not found: exit %d, stderr %q", tty, r.Code, r.ErrOut)
		}
	}
}

// The filters of list apply to every page as it arrives, with --all and
// --limit, and to the one page read without them.
func TestListFilters(t *testing.T) {
	srv := wbstest.Start(t)
	for i := range 25 { // E00 to E24, the even ones active
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%02d", i), IsActive: i%2 == 0})
	}
	srv.Put(wbstest.Element{Code: "P/1", IsActive: true}, wbstest.Element{Code: "P-*", IsActive: true})
	codes := func(out string) string {
		var c []string
		for line := range strings.Lines(out) {
			c = append(c, strings.SplitN(line, "\t", 2)[0])
		}
		return strings.Join(c, " ")
	}
	tests := []struct {
		name  string
		args  []string
		want  string
		lists int
	}{
		{"glob across pages", []string{"--all", "--page-size", "10", "--code", "E1?"}, "E10 E11 E12 E13 E14 E15 E16 E17 E18 E19", 3},
		{"several patterns", []string{"--all", "--page-size", "10", "--code", "E0[0-2]", "--code", "E2*"}, "E00 E01 E02 E20 E21 E22 E23 E24", 3},
		{"active", []string{"--all", "--page-size", "10", "--active", "--code", "E1*"}, "E10 E12 E14 E16 E18", 3},
		{"inactive", []string{"--all", "--page-size", "10", "--inactive", "--code", "E[02]*"}, "E01 E03 E05 E07 E09 E21 E23", 3},
		{"inactive alone", []string{"--all", "--inactive"}, "E01 E03 E05 E07 E09 E11 E13 E15 E17 E19 E21 E23", 1},
		{"limit counts matches", []string{"--limit", "3", "--page-size", "10", "--code", "E1*"}, "E10 E11 E12", 2},
		{"limit over pages", []string{"--limit", "2", "--page-size", "10", "--active", "--code", "E2*"}, "E20 E22", 3},
		{"limit not reached", []string{"--limit", "50", "--page-size", "10", "--code", "E2?"}, "E20 E21 E22 E23 E24", 3},
		{"one page", []string{"--page", "2", "--page-size", "10", "--code", "E1[5-9]", "--active"}, "E16 E18", 1},
		{"no match", []string{"--all", "--code", "Z*"}, "", 1},
		{"star stops at a slash", []string{"--all", "--code", "P*"}, "P-*", 1},
		{"a slash matched as it is", []string{"--all", "--code", "P/*"}, "P/1", 1},
		{"an escaped star", []string{"--all", "--code", `P-\*`}, "P-*", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.ResetStats()
			r := run(t, srv, false, "", append([]string{"element", "list", "--no-headers"}, tt.args...)...)
			if r.Code != 0 || codes(r.Out) != tt.want {
				t.Fatalf("exit %d, %q, want %q; stderr %s", r.Code, codes(r.Out), tt.want, r.ErrOut)
			}
			if n := srv.Stats().Requests[wbstest.OpList]; n != tt.lists {
				t.Fatalf("%d pages read, want %d", n, tt.lists)
			}
		})
	}
	r := run(t, srv, false, "", "element", "list", "--page-size", "10", "--code", "E0?", "--active")
	if r.Code != 0 || !strings.Contains(r.ErrOut, "showing page 1 (5 of its 10 elements match); more may follow: --page 2") {
		t.Fatalf("the hint of one page filtered: %q", r.ErrOut)
	}
	for _, args := range [][]string{{"--active", "--inactive"}, {"--code", "E[0-"}, {"--code", `E\`}} {
		if r := run(t, srv, false, "", append([]string{"element", "list"}, args...)...); r.Code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, r.Code, cmdutil.ExitUsage, r.ErrOut)
		}
	}
}

// The filters of list reach a terminal's table escaped, and match a code
// whose characters a terminal would act on.
func TestListFilterOfHostileCodes(t *testing.T) {
	srv := wbstest.Start(t)
	srv.Put(wbstest.Element{Code: "P-" + hostile, IsActive: true}, wbstest.Element{Code: "Q-1"})
	r := run(t, srv, true, "", "element", "list", "--all", "--code", "P-*", "--active")
	if r.Code != 0 || raw(r.Out) || !strings.Contains(r.Out, `P-x\x1b]0;owned\ay\x1b[2Jz\u202eq`) || strings.Contains(r.Out, "Q-1") {
		t.Fatalf("exit %d, %q", r.Code, r.Out)
	}
}

// Whatever a platform's next and hits mean, and whether it answers an
// empty list with 404, view stops at the page that holds the code, shows
// an element with no organizations as such, and tells a missing code.
func TestViewUnderListReadings(t *testing.T) {
	readings := [][]wbstest.Option{
		{wbstest.WithNextStyle(wbstest.NextNull), wbstest.WithHitsMeaning(wbstest.HitsNull), wbstest.WithEmptyListStatus(404), wbstest.WithPastEnd(wbstest.PastEndNotFound)},
		{wbstest.WithNextStyle(wbstest.NextCursor), wbstest.WithHitsMeaning(wbstest.HitsPageCount), wbstest.WithPastEnd(wbstest.PastEndLastPage)},
		{wbstest.WithNextStyle(wbstest.NextAbsent), wbstest.WithMaxPageSize(50)},
	}
	for i, opts := range readings {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			srv := wbstest.Start(t, opts...)
			for i := range 250 {
				srv.Put(wbstest.Element{Code: fmt.Sprintf("E%03d", i)})
			}
			r := run(t, srv, false, "", "element", "view", "E005", "-o", "json", "--jq", ".[] | [.wbsElementCode, (.businessOrganizations | length)] | @tsv")
			if r.Code != 0 || r.Out != "E005\t0\n" {
				t.Fatalf("exit %d, %q: %s", r.Code, r.Out, r.ErrOut)
			}
			if n := srv.Stats().Requests[wbstest.OpList]; n != 1 {
				t.Fatalf("%d list pages read for an element of the first", n)
			}
			r = run(t, srv, false, "", "element", "view", "E249", "NOPE", "--no-headers")
			if r.Code != cmdutil.ExitNotFound || r.Out != "E249\t\tfalse\t\n" || !strings.Contains(r.ErrOut, `"NOPE" not found: the 250 elements listed`) {
				t.Fatalf("exit %d, %q: %s", r.Code, r.Out, r.ErrOut)
			}
		})
	}
}
