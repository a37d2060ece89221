package apply_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// matrixFile writes n elements, every third without links, every other
// one with two; description says which version of the file it is.
func matrixFile(t *testing.T, dir, version string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("wbsElementCode,description,isActive,businessOrganizations\n")
	for i := range n {
		orgs := ""
		switch i % 3 {
		case 1:
			orgs = fmt.Sprintf("company=C%d", i)
		case 2:
			orgs = fmt.Sprintf("company=C%d;branch=B%s%d", i, version, i)
		}
		fmt.Fprintf(&b, "E%02d,%s %d,%v,%s\n", i, version, i, i%4 != 0 || version == "one", orgs)
	}
	file := filepath.Join(dir, version+".csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// exportedCodes reads an NDJSON export into code → one line per element.
func exported(t *testing.T, out string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Code  string          `json:"wbsElementCode"`
			Desc  *string         `json:"description"`
			Act   bool            `json:"isActive"`
			Links json.RawMessage `json:"businessOrganizations"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		var links []sdk.BusinessOrganization
		_ = json.Unmarshal(r.Links, &links)
		var keys []string
		for _, l := range links {
			keys = append(keys, l.EntityType+"="+l.Code)
		}
		slices.Sort(keys)
		m[r.Code] = fmt.Sprintf("%s|%v|%s", *r.Desc, r.Act, strings.Join(keys, ";"))
	}
	return m
}

// held is the platform's state in the form of exported.
func held(srv *wbstest.Server) map[string]string {
	m := map[string]string{}
	for _, el := range srv.Elements() {
		var keys []string
		for _, l := range el.BusinessOrganizations {
			keys = append(keys, l.EntityType+"="+l.Code)
		}
		slices.Sort(keys)
		d := ""
		if el.Description != nil {
			d = *el.Description
		}
		m[el.Code] = fmt.Sprintf("%s|%v|%s", d, el.IsActive, strings.Join(keys, ";"))
	}
	return m
}

func writes(srv *wbstest.Server) int {
	st := srv.Stats()
	return st.Requests[wbstest.OpCreate] + st.Requests[wbstest.OpUpdate] + st.Requests[wbstest.OpDelete] + st.Requests[wbstest.OpDeleteLinks]
}

// TestCommandsUnderEveryReading runs apply, export, element list and
// element org list against a platform of each reading of next, hits, an
// empty list, a page past the end, the link update and a silent page-size
// cap, with lists that are exact multiples of the page size.
func TestCommandsUnderEveryReading(t *testing.T) {
	type reading struct {
		next    wbstest.NextStyle
		hits    wbstest.HitsMeaning
		empty   int
		pastEnd wbstest.PastEnd
		mode    wbstest.OrgUpdateMode
		max     int
	}
	var readings []reading
	for next := wbstest.NextURL; next <= wbstest.NextAbsent; next++ {
		for hits := wbstest.HitsTotal; hits <= wbstest.HitsNull; hits++ {
			for _, empty := range []int{200, 404} {
				for pastEnd := wbstest.PastEndEmpty; pastEnd <= wbstest.PastEndLastPage; pastEnd++ {
					for _, mode := range []wbstest.OrgUpdateMode{wbstest.OrgMerge, wbstest.OrgReplace} {
						readings = append(readings, reading{next, hits, empty, pastEnd, mode, 100})
						// A silent cap can only be seen through next or a total.
						if (next != wbstest.NextNull && next != wbstest.NextAbsent) || hits == wbstest.HitsTotal {
							readings = append(readings, reading{next, hits, empty, pastEnd, mode, 5})
						}
					}
				}
			}
		}
	}
	const n = 20 // two pages of 10
	for _, r := range readings {
		name := fmt.Sprintf("next=%s/hits=%s/empty=%d/past-end=%s/org=%d/max=%d", r.next, r.hits, r.empty, r.pastEnd, r.mode, r.max)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := wbstest.New(wbstest.WithNextStyle(r.next), wbstest.WithHitsMeaning(r.hits), wbstest.WithEmptyListStatus(r.empty),
				wbstest.WithPastEnd(r.pastEnd), wbstest.WithOrgUpdateMode(r.mode), wbstest.WithMaxPageSize(r.max))
			srv.URL = "http://127.0.0.1:9" // loopback, but never dialled: srv.Transport answers
			cli := cmdtest.Run{Transport: srv.Transport()}
			do := func(args ...string) cmdtest.Result {
				return cli.Do(t, srv, append(args, "--rate", "0", "--page-size", "10")...)
			}
			dir := t.TempDir()
			one, two := matrixFile(t, dir, "one", n), matrixFile(t, dir, "two", n)

			if res := do("apply", "-f", one); res.Code != 0 || len(srv.Elements()) != n {
				t.Fatalf("first apply: exit %d, %d elements: %s", res.Code, len(srv.Elements()), res.ErrOut)
			}
			srv.ResetStats()
			if res := do("apply", "-f", one); res.Code != 0 || writes(srv) != 0 {
				t.Fatalf("re-apply: exit %d, %d writes: %s", res.Code, writes(srv), res.ErrOut)
			}
			if res := do("apply", "-f", two); res.Code != 0 {
				t.Fatalf("changed file: exit %d: %s", res.Code, res.ErrOut)
			}
			srv.ResetStats()
			if res := do("apply", "-f", two, "--dry-run", "--detailed-exitcode"); res.Code != 0 || writes(srv) != 0 {
				t.Fatalf("the changed file did not converge: exit %d\n%s", res.Code, res.Out)
			}
			want := held(srv)
			res := cli.Do(t, srv, "export", "--format", "ndjson", "--page-size", "10")
			if res.Code != 0 {
				t.Fatalf("export: exit %d: %s", res.Code, res.ErrOut)
			}
			if got := exported(t, res.Out); len(got) != n || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("export differs from the platform:\n%v\nwant\n%v", got, want)
			}
			if want["E03"] != "two 3|true|" && want["E03"] != "two 3|false|" {
				t.Fatalf("E03 should hold the second file's description and no link: %q", want["E03"])
			}
			res = cli.Do(t, srv, "element", "list", "--all", "--page-size", "10", "-o", "json")
			var listed []map[string]any
			if res.Code != 0 || json.Unmarshal([]byte(res.Out), &listed) != nil || len(listed) != n {
				t.Fatalf("element list --all: exit %d, %d elements\n%s%s", res.Code, len(listed), res.Out, res.ErrOut)
			}
			srv.Put(wbstest.Element{Code: "EXTRA-1"}, wbstest.Element{Code: "EXTRA-2"})
			if res := do("apply", "-f", two, "--prune", "--yes"); res.Code != 0 || len(srv.Elements()) != n {
				t.Fatalf("prune: exit %d, %d elements: %s", res.Code, len(srv.Elements()), res.ErrOut)
			}
			if _, ok := srv.Element("EXTRA-1"); ok {
				t.Fatal("prune left EXTRA-1")
			}
			for _, all := range [][]string{nil, {"--all"}} {
				res = cli.Do(t, srv, append([]string{"element", "org", "list", "E03", "-o", "json"}, all...)...)
				if res.Code != 0 || strings.TrimSpace(res.Out) != "[]" {
					t.Fatalf("org list %v of an element without links: exit %d %q %s", all, res.Code, res.Out, res.ErrOut)
				}
				res = cli.Do(t, srv, append([]string{"element", "org", "list", "NOSUCH"}, all...)...)
				if res.Code != cmdutil.ExitNotFound {
					t.Fatalf("org list %v of a missing code: exit %d, want %d", all, res.Code, cmdutil.ExitNotFound)
				}
			}
		})
	}
}

// The readings under which apply once failed or planned wrongly, named
// after them, against a server on loopback.

func TestApplyReadingEmptyListIsNotFound(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithEmptyListStatus(http.StatusNotFound))
	file := matrixFile(t, t.TempDir(), "one", 6)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0"); code != 0 || len(srv.Elements()) != 6 {
		t.Fatalf("first apply on an empty platform: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0", "--dry-run", "--detailed-exitcode"); code != 0 {
		t.Fatalf("re-apply with elements without links: exit %d: %s", code, errOut)
	}
}

func TestApplyReadingNextIsAnAllDigitCursor(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithNextStyle(wbstest.NextOffset))
	file := matrixFile(t, t.TempDir(), "one", 30)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0", "--page-size", "10"); code != 0 {
		t.Fatalf("first apply: exit %d: %s", code, errOut)
	}
	srv.ResetStats()
	if code, out, _ := run(t, srv, "", "apply", "-f", file, "--rate", "0", "--page-size", "10", "--dry-run", "--detailed-exitcode"); code != 0 || srv.Stats().Requests[wbstest.OpCreate] != 0 {
		t.Fatalf("re-apply planned changes for elements that exist: exit %d\n%s", code, out)
	}
}
