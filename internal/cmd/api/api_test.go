package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func api(t *testing.T, srv *wbstest.Server, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run{}.Do(t, srv, append([]string{"api"}, args...)...)
}

func TestFieldsMakeTheBody(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithOrgUpdateMode(wbstest.OrgReplace))
	body := filepath.Join(t.TempDir(), "desc.txt")
	os.WriteFile(body, []byte("from a file"), 0o600)
	res := api(t, srv, "/v1/wbs-elements", "-f", "wbsElementCode=A-1", "-F", "description=@"+body, "-F", "isActive=false")
	if res.Code != 0 || !strings.Contains(res.Out, "correlationId") {
		t.Fatalf("create: exit %d: %s %s", res.Code, res.Out, res.ErrOut)
	}
	el, ok := srv.Element("A-1")
	if !ok || *el.Description != "from a file" || el.IsActive {
		t.Fatalf("A-1: %+v", el)
	}
	// Objects in an array, as gh builds them: a[][b] adds b to the last
	// object until it has one.
	res = api(t, srv, "-X", "PUT", "/v1/wbs-elements/A-1", "-f", "businessOrganizations[][code]=1000",
		"-f", "businessOrganizations[][entityType]=company", "-f", "businessOrganizations[][code]=2000",
		"-f", "businessOrganizations[][entityType]=branch", "-F", "description=null")
	if el, _ := srv.Element("A-1"); res.Code != 0 || el.Description != nil || len(el.BusinessOrganizations) != 2 {
		t.Fatalf("nested fields: exit %d: %+v %s", res.Code, el, res.ErrOut)
	}
	in := filepath.Join(t.TempDir(), "update.json")
	os.WriteFile(in, []byte(`{"businessOrganizations":[{"code":"1000","entityType":"company"}],"description":"again"}`), 0o600)
	if res := api(t, srv, "-X", "PUT", "/v1/wbs-elements/A-1", "--input", in, "-H", "X-Request-Note: from a test"); res.Code != 0 {
		t.Fatalf("--input: exit %d: %s", res.Code, res.ErrOut)
	}
	if el, _ := srv.Element("A-1"); *el.Description != "again" || len(el.BusinessOrganizations) != 1 {
		t.Fatalf("after --input: %+v", el)
	}
	// A GET's fields are its query.
	res = api(t, srv, "-X", "GET", "/v1/wbs-elements", "-f", "pageSize=1", "-F", "pageNumber=1")
	if j := srv.Journal(); res.Code != 0 || j[len(j)-1].RawQuery != "pageNumber=1&pageSize=1" {
		t.Fatalf("GET fields: exit %d, query %q", res.Code, j[len(j)-1].RawQuery)
	}
}

func TestTypedAndNestedFields(t *testing.T) {
	// A server that echoes the body it got.
	srv := cmdtest.Behind(t, wbstest.New(), func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/v1/echo" {
			return false
		}
		var v any
		_ = json.NewDecoder(r.Body).Decode(&v)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
		return true
	})
	res := api(t, srv, "/v1/echo", "-F", "n=42", "-F", "x=1.5", "-F", "t=true", "-F", "z=null", "-f", "s=42",
		"-F", "a[b][c]=d", "-f", "list[]=one", "-f", "list[]=two")
	want := `{"a":{"b":{"c":"d"}},"list":["one","two"],"n":42,"s":"42","t":true,"x":"1.5","z":null}` // gh types integers only
	if res.Code != 0 || strings.TrimSpace(res.Out) != want {
		t.Fatalf("exit %d: %s, want %s (%s)", res.Code, res.Out, want, res.ErrOut)
	}
}

func TestPaginateUnderReadings(t *testing.T) {
	for _, next := range []wbstest.NextStyle{wbstest.NextURL, wbstest.NextOffset, wbstest.NextNull} {
		for _, hits := range []wbstest.HitsMeaning{wbstest.HitsTotal, wbstest.HitsPageCount} {
			t.Run(fmt.Sprint(next, "/", hits), func(t *testing.T) {
				srv := wbstest.Start(t, wbstest.WithNextStyle(next), wbstest.WithHitsMeaning(hits), wbstest.WithPastEnd(wbstest.PastEndLastPage))
				for i := range 21 {
					srv.Put(wbstest.Element{Code: fmt.Sprintf("E%02d", i)})
				}
				res := api(t, srv, "/v1/wbs-elements", "--paginate", "--page-size", "7")
				if res.Code != 0 || strings.Count(res.Out, "\n") != 21 || !strings.Contains(strings.SplitN(res.Out, "\n", 2)[0], `"wbsElementCode":"E00"`) {
					t.Fatalf("--paginate: exit %d:\n%s%s", res.Code, res.Out, res.ErrOut)
				}
				res = api(t, srv, "/v1/wbs-elements", "--paginate", "--slurp", "--page-size", "7", "--jq", "length")
				if res.Code != 0 || res.Out != "21\n" {
					t.Fatalf("--slurp: exit %d %q", res.Code, res.Out)
				}
				res = api(t, srv, "/v1/wbs-elements", "--paginate", "--page-size", "7", "-o", "csv")
				if res.Code != 0 || strings.Count(res.Out, "\n") != 22 || !strings.HasPrefix(res.Out, "description,isActive,wbsElementCode\n") {
					t.Fatalf("-o csv: exit %d:\n%s", res.Code, res.Out)
				}
			})
		}
	}
}

// The token appears in no --include or --debug output, even from a
// server that echoes it in a header.
func TestTokenNeverShown(t *testing.T) {
	srv := wbstest.New()
	srv = cmdtest.Behind(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		return false
	})
	res := cmdtest.Run{}.Do(t, srv, "api", "/v1/wbs-elements", "--include", "--debug")
	if res.Code != 0 || !strings.Contains(res.Out, "HTTP 200 OK") || !strings.Contains(res.Out, "X-Echo: Bearer [REDACTED]") {
		t.Fatalf("exit %d:\n%s", res.Code, res.Out)
	}
	if strings.Contains(res.Out+res.ErrOut, "eyJ") {
		t.Fatalf("a token was shown:\n%s\n%s", res.Out, res.ErrOut)
	}
}

func TestExitCodesAndRefusals(t *testing.T) {
	srv := wbstest.Start(t)
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"/v1/no-such-interface"}, cmdutil.ExitNotFound},
		{[]string{"-X", "PUT", "/v1/wbs-elements/NOPE", "-F", "isActive=true"}, cmdutil.ExitNotFound},
		{[]string{"/v1/wbs-elements", "-f", "wbsElementCode="}, cmdutil.ExitValidation},
		{[]string{"-X", "POST", "/integration-hub-api/v1/flows/other/execute", "--input", "-"}, cmdutil.ExitAuth},
		{[]string{"/v1/wbs-elements", "--silent"}, cmdutil.ExitOK},
		{[]string{"/v1/wbs-elements", "--slurp"}, cmdutil.ExitUsage},
	} {
		res := cmdtest.Run{Stdin: "{}"}.Do(t, srv, append([]string{"api"}, tt.args...)...)
		if res.Code != tt.code {
			t.Errorf("%v: exit %d, want %d: %s", tt.args, res.Code, tt.code, res.ErrOut)
		}
		if tt.code == cmdutil.ExitOK && res.Out != "" {
			t.Errorf("--silent wrote %q", res.Out)
		}
	}
	srv.ResetStats()
	res := api(t, srv, "https://elsewhere.example/v1/wbs-elements")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "refusing to send credentials") || len(srv.Journal()) != 0 {
		t.Fatalf("another origin: exit %d, %d requests: %s", res.Code, len(srv.Journal()), res.ErrOut)
	}
}

// A POST whose answer is lost after the platform acted is not sent again;
// with --retry-safe it is.
func TestPostIsNotResent(t *testing.T) {
	srv := wbstest.Start(t, wbstest.WithFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultDropAfterCommit, Times: 1}))
	res := api(t, srv, "/v1/wbs-elements", "-f", "wbsElementCode=D-1")
	if res.Code == 0 || srv.Stats().Requests[wbstest.OpCreate] != 1 || srv.Stats().Creates != 1 {
		t.Fatalf("exit %d, %d create requests: %s", res.Code, srv.Stats().Requests[wbstest.OpCreate], res.ErrOut)
	}
	srv.AddFaults(wbstest.FaultRule{Operation: wbstest.OpUpdate, Kind: wbstest.FaultReset, Times: 1})
	res = api(t, srv, "-X", "PUT", "/v1/wbs-elements/D-1", "-F", "isActive=false", "--retry-safe")
	if res.Code != 0 || srv.Stats().Requests[wbstest.OpUpdate] != 2 {
		t.Fatalf("--retry-safe: exit %d, %d updates: %s", res.Code, srv.Stats().Requests[wbstest.OpUpdate], res.ErrOut)
	}
}
