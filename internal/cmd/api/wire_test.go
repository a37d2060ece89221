package api_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apicmd "github.com/wbsctl/wbsctl/internal/cmd/api"
	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Finding 1: fields make a POST body unless -X says otherwise, and with
// -X GET or HEAD they make the query.
func TestMethodAndFieldsFollowGh(t *testing.T) {
	p := newPlatform(t, "/tenant-a")
	for _, tt := range []struct {
		args              []string
		method, uri, body string
	}{
		{[]string{"/v1/orders"}, "GET", "/tenant-a/v1/orders", ""},
		{[]string{"/v1/orders", "-f", "status=open"}, "POST", "/tenant-a/v1/orders", `{"status":"open"}`},
		{[]string{"-X", "GET", "/v1/orders", "-f", "status=open"}, "GET", "/tenant-a/v1/orders?status=open", ""},
		{[]string{"-X", "get", "/v1/orders?a=1", "-F", "n=2", "-F", "t=true"}, "GET", "/tenant-a/v1/orders?a=1&n=2&t=true", ""},
		{[]string{"-X", "HEAD", "/v1/orders", "-f", "status=open"}, "HEAD", "/tenant-a/v1/orders?status=open", ""},
		{[]string{"-X", "DELETE", "/v1/orders/7", "-F", "force=true"}, "DELETE", "/tenant-a/v1/orders/7", `{"force":true}`},
		{[]string{"-X", "PATCH", "/v1/orders/7"}, "PATCH", "/tenant-a/v1/orders/7", ""},
	} {
		got := p.only(t, p.run(t, cmdtest.Run{}, tt.args...))
		if got.Method != tt.method || got.RequestURI != tt.uri || got.Body != tt.body {
			t.Errorf("%q sent %s %s %q, want %s %s %q", tt.args, got.Method, got.RequestURI, got.Body, tt.method, tt.uri, tt.body)
		}
	}
}

// Finding 1: the help says what the command does, and its read example
// reads.
func TestHelpSaysFieldsMakeABody(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	cmd := apicmd.NewCmdAPI(cmdutil.New(io), nil)
	if strings.Contains(cmd.Long, "or the query of a GET") || !strings.Contains(cmd.Long, "POST when fields") {
		t.Errorf("the help does not say that fields make a POST:\n%s", cmd.Long)
	}
	for _, line := range strings.Split(cmd.Example, "\n") {
		if strings.Contains(line, "/v1/orders") && !strings.Contains(line, "-X GET") {
			t.Errorf("a read example that sends a POST: %s", line)
		}
	}
}

// Finding 2: -F types true, false, null and integers, an integer exactly
// as written; anything else is a string.
func TestTypedNumbersGoOutAsWritten(t *testing.T) {
	p := newPlatform(t, "")
	got := p.only(t, p.run(t, cmdtest.Run{}, "/v1/echo",
		"-F", "big=12345678901234567890", "-F", "neg=-42", "-F", "zero=0", "-F", "under=1_000", "-F", "hex=0x1p4",
		"-F", "inf=Inf", "-F", "frac=1.5", "-F", "exp=1e3", "-F", "octal=007", "-F", "plus=+1", "-F", "t=true", "-F", "n=null",
		"-f", "raw=42", "-f", "amp=a&b<c>"))
	want := `{"amp":"a&b<c>","big":12345678901234567890,"exp":"1e3","frac":"1.5","hex":"0x1p4","inf":"Inf","n":null,"neg":-42,` +
		`"octal":"007","plus":"+1","raw":"42","t":true,"under":"1_000","zero":0}`
	if got.Body != want {
		t.Fatalf("body\n%s\nwant\n%s", got.Body, want)
	}
}

// Findings 3 and 15: a header that would move the token, or that cannot be
// written as one header, is a usage error found before anything is sent.
func TestHeadersThatAreRefused(t *testing.T) {
	p := newPlatform(t, "/tenant-a")
	for _, h := range []string{
		"Host: evil.example.com", "host:evil.example.com", "Authorization: Bearer mine",
		"Content-Length: 1", "Transfer-Encoding: chunked", "Trailer: X", "Connection: close", "Upgrade: h2c",
		"TE: trailers", "Keep-Alive: timeout=5", "Proxy-Authorization: Basic eA==", "proxy-connection: keep-alive",
		"X-Note: a\r\nHost: evil.example.com", "X-Note: a\nb", "X-Note: a\rb", "X-Note: a\x00b", "X Note: a", "X-Note",
	} {
		res := p.run(t, cmdtest.Run{}, "/v1/orders", "-H", h)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "nothing was sent") || p.reached() != 0 {
			t.Errorf("-H %q: exit %d: %s", h, res.Code, res.ErrOut)
		}
	}
}

// Finding 4: the user's Content-Type, Accept and User-Agent replace the
// defaults; exactly one of each goes out.
func TestUserHeadersReplaceDefaults(t *testing.T) {
	p := newPlatform(t, "")
	in := filepath.Join(t.TempDir(), "rows.csv")
	os.WriteFile(in, []byte("a,b\n1,2\n"), 0o600)
	got := p.only(t, p.run(t, cmdtest.Run{}, "/v1/import", "--input", in,
		"-H", "Content-Type: text/csv", "-H", "accept: text/plain", "-H", "User-Agent: importer/2", "-H", "X-Note:  two words "))
	for name, want := range map[string]string{"Content-Type": "text/csv", "Accept": "text/plain", "User-Agent": "importer/2", "X-Note": "two words"} {
		if v := got.Header.Values(name); !slices.Equal(v, []string{want}) {
			t.Errorf("%s: %q, want only %q", name, v, want)
		}
	}
	if got.Method != "POST" || got.Body != "a,b\n1,2\n" {
		t.Errorf("sent %s %q", got.Method, got.Body)
	}
	// Without them, one default of each.
	got = p.only(t, p.run(t, cmdtest.Run{}, "/v1/import", "-f", "a=b"))
	for _, name := range []string{"Content-Type", "Accept", "User-Agent"} {
		if v := got.Header.Values(name); len(v) != 1 || v[0] == "" {
			t.Errorf("default %s: %q", name, v)
		}
	}
	if got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("default Content-Type %q", got.Header.Get("Content-Type"))
	}
}

// Finding 5: a path that leaves the base URL's path once its
// dot-segments are resolved, plain or percent-encoded, is refused before
// anything is sent; one that stays below it goes out resolved.
func TestPathStaysBelowBase(t *testing.T) {
	p := newPlatform(t, "/tenant-a")
	for _, path := range []string{
		"../tenant-b/x", "/../tenant-b/x", "%2e%2e/tenant-b/x", "%2E%2E/tenant-b/x", "%2E./tenant-b", ".%2e/tenant-b",
		"v1/../../tenant-b/x", "v1/%2e%2e/%2E%2E/tenant-b/x", "v1/./../..", "..",
		// A dot-segment behind an encoded slash or a backslash.
		"v1/x%2F..%2F..%2F..%2Ftenant-b", "v1/..%2F..", "v1/..%5C..%5Ctenant-b", `v1\..\..\tenant-b`,
		// Absolute URLs on the platform's origin, outside the base path.
		p.srv.URL + "/tenant-b/x", p.srv.URL + "/tenant-ab/x", p.srv.URL + "/tenant-a/../tenant-b/x", p.srv.URL + "/tenant-a/%2e%2e/tenant-b",
		"v1/%zz", "v1/x\r\nHost: evil.example.com",
	} {
		res := p.run(t, cmdtest.Run{}, path)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "nothing was sent") || p.reached() != 0 {
			t.Errorf("%q: exit %d: %s", path, res.Code, res.ErrOut)
		}
	}
	for path, want := range map[string]string{
		"v1/a/../b":                         "/tenant-a/v1/b",
		"./v1/./x/":                         "/tenant-a/v1/x/",
		"v1/x/%2e%2E/y?q=..":                "/tenant-a/v1/y?q=..",
		"v1/x/..":                           "/tenant-a/v1/",
		"v1/wbs-elements/A%2FB":             "/tenant-a/v1/wbs-elements/A%2FB",
		"v1/wbs-elements/a b":               "/tenant-a/v1/wbs-elements/a%20b",
		"v1/a..b/...":                       "/tenant-a/v1/a..b/...",
		p.srv.URL + "/tenant-a/v1/x?y=1":    "/tenant-a/v1/x?y=1",
		p.srv.URL + "/tenant-a/v1/a/../b#f": "/tenant-a/v1/b",
	} {
		if got := p.only(t, p.run(t, cmdtest.Run{}, path)); got.RequestURI != want {
			t.Errorf("%q sent %s, want %s", path, got.RequestURI, want)
		}
	}
}

// Findings 14 and 15: a method that is no HTTP method, a URL on another
// origin, and a body or header that would not go out as given are usage
// errors found before anything is sent.
func TestLocalMistakesSendNothing(t *testing.T) {
	p := newPlatform(t, "")
	elsewhere := newPlatform(t, "")
	for _, args := range [][]string{
		{"-X", "GET /x", "/v1/orders"},
		{"-X", "POST\r\nX-A: 1", "/v1/orders"},
		{"-X", "", "/v1/orders", "-f", "a=b"},
		{elsewhere.srv.URL + "/v1/orders"},
		{"https://elsewhere.example/v1/orders", "-f", "a=b"},
		{"//elsewhere.example/v1/orders"},
		{"-X", "POST", "/v1/orders", "-F", "a=@" + filepath.Join(t.TempDir(), "missing")},
		{"-X", "GET", "/v1/orders", "--input", "-"},
		{"/v1/orders", "-H", "User-Agent: a/1", "-H", "User-Agent: b/1"},
		{"/v1/orders", "-f", "a"},
		{"/v1/orders", "-f", "a[b=1"},
		{"/v1/orders", "-f", "[b]=1"},
	} {
		res := p.run(t, cmdtest.Run{}, args...)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "nothing was sent") || strings.Contains(res.ErrOut, "outcome") {
			t.Errorf("%q: exit %d: %s", args, res.Code, res.ErrOut)
		}
		if n := p.reached() + elsewhere.reached(); n != 0 {
			t.Errorf("%q: %d requests", args, n)
		}
	}
}

// Finding 9: keys nest as gh nests them.
func TestNestedFieldsAsGhBuildsThem(t *testing.T) {
	p := newPlatform(t, "")
	for _, tt := range []struct {
		args []string
		body string
	}{
		{[]string{"-F", "a[b][c]=1", "-f", "a[b][d]=x", "-f", "a[e]=y"}, `{"a":{"b":{"c":1,"d":"x"},"e":"y"}}`},
		{[]string{"-f", "l[]=one", "-F", "l[]=2", "-f", "l[]=three"}, `{"l":["one","three",2]}`},
		{[]string{"-f", "o[][code]=1000", "-f", "o[][entityType]=company", "-f", "o[][code]=2000"},
			`{"o":[{"code":"1000","entityType":"company"},{"code":"2000"}]}`},
		{[]string{"-f", "o[][tags][]=a", "-f", "o[][tags][]=b"}, `{"o":[{"tags":["a","b"]}]}`},
		{[]string{"-f", "empty[]"}, `{"empty":[]}`},
		{[]string{"-F", "n[]=null"}, `{"n":[null]}`},
	} {
		got := p.only(t, p.run(t, cmdtest.Run{}, append([]string{"/v1/echo"}, tt.args...)...))
		if got.Body != tt.body {
			t.Errorf("%q: body %s, want %s", tt.args, got.Body, tt.body)
		}
	}
}

// Finding 9: a key given two meanings is refused, for a body and for a
// query alike, rather than one field silently replacing the other.
func TestFieldConflictsAreRefused(t *testing.T) {
	p := newPlatform(t, "")
	for _, args := range [][]string{
		{"-F", "a=1", "-F", "a[b]=2"},
		{"-F", "a[b]=2", "-F", "a=1"},
		{"-f", "a=1", "-f", "a=2"},
		{"-f", "a=1", "-F", "a=2"},
		{"-f", "a[]=1", "-F", "a=2"},
		{"-f", "a=1", "-f", "a[]=2"},
		{"-f", "a[b]=1", "-f", "a[]=2"},
		{"-f", "a[b]=1", "-f", "a[b][c]=2"},
		{"-f", "a[][]=1"},
	} {
		for _, method := range []string{"POST", "GET"} {
			res := p.run(t, cmdtest.Run{}, append([]string{"-X", method, "/v1/echo"}, args...)...)
			if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "nothing was sent") || p.reached() != 0 {
				t.Errorf("%s %q: exit %d: %s", method, args, res.Code, res.ErrOut)
			}
		}
	}
}

// Finding 10: on a GET, -F a=@FILE sends the file's contents as the
// query's value, as it does in a body.
func TestFileFieldOnAGet(t *testing.T) {
	p := newPlatform(t, "")
	file := filepath.Join(t.TempDir(), "q.txt")
	os.WriteFile(file, []byte("open & late"), 0o600)
	got := p.only(t, p.run(t, cmdtest.Run{Stdin: "from stdin"}, "-X", "GET", "/v1/orders", "-F", "status=@"+file, "-F", "note=@-", "-F", "o[k]=1", "-f", "l[]=x"))
	if want := "/v1/orders?l%5B%5D=x&note=from+stdin&o%5Bk%5D=1&status=open+%26+late"; got.RequestURI != want {
		t.Fatalf("sent %s, want %s", got.RequestURI, want)
	}
}

// Finding 7: --max-pages bounds a list whose next never ends, with an
// error that names it; the pages read before are written.
func TestMaxPagesEndsAnEndlessList(t *testing.T) {
	p := newPlatform(t, "")
	p.answer = func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("pageNumber")
		fmt.Fprintf(w, `{"data":[{"page":%q,"i":1},{"page":%q,"i":2}],"hits":null,"next":"more"}`, n, n)
	}
	res := p.run(t, cmdtest.Run{}, "/v1/endless", "--paginate", "--page-size", "2", "--max-pages", "3")
	reqs := p.requests()
	if res.Code != cmdutil.ExitError || len(reqs) != 3 || strings.Count(res.Out, "\n") != 6 || !strings.Contains(res.ErrOut, "--max-pages (3)") {
		t.Fatalf("exit %d, %d requests:\n%s%s", res.Code, len(reqs), res.Out, res.ErrOut)
	}
}

// Finding 6: --paginate starts at the pageNumber of the path's query (or
// of -X GET's fields) and keeps its pageSize unless --page-size is given.
func TestPaginateStartsAtThePathsPage(t *testing.T) {
	srv := wbstest.Start(t)
	for i := range 25 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%02d", i)})
	}
	for _, args := range [][]string{
		{"/v1/wbs-elements?pageNumber=3", "--paginate", "--page-size", "5"},
		{"/v1/wbs-elements?pageNumber=3&pageSize=5", "--paginate"},
		{"-X", "GET", "/v1/wbs-elements", "--paginate", "-F", "pageNumber=3", "-f", "pageSize=5"},
	} {
		srv.ResetStats()
		res := api(t, srv, append(args, "--jq", ".[].wbsElementCode")...)
		j := slices.DeleteFunc(srv.Journal(), func(e wbstest.JournalEntry) bool { return e.Operation != wbstest.OpList })
		if res.Code != 0 || len(j) == 0 || !strings.HasPrefix(res.Out, "E10\n") || !strings.HasSuffix(res.Out, "E24\n") || strings.Count(res.Out, "\n") != 15 {
			t.Fatalf("%q: exit %d:\n%s%s", args, res.Code, res.Out, res.ErrOut)
		}
		if q := j[0].RawQuery; q != "pageNumber=3&pageSize=5" {
			t.Errorf("%q: first page asked with %q", args, q)
		}
	}
	for _, path := range []string{"/v1/wbs-elements?pageNumber=x", "/v1/wbs-elements?pageNumber=0", "/v1/wbs-elements?pageSize=-1"} {
		srv.ResetStats()
		if res := api(t, srv, path, "--paginate"); res.Code != cmdutil.ExitUsage || len(srv.Journal()) != 0 {
			t.Errorf("%s: exit %d: %s", path, res.Code, res.ErrOut)
		}
	}
}

// Finding 8: --paginate --include writes each page's status line and
// headers before that page's items.
func TestPaginateIncludeWritesEachPagesHead(t *testing.T) {
	p := newPlatform(t, "")
	p.answer = func(w http.ResponseWriter, r *http.Request) {
		n := cmp.Or(r.URL.Query().Get("pageNumber"), "1")
		w.Header().Set("X-Page", n)
		fmt.Fprintf(w, `{"data":[{"page":%q}],"hits":2}`, n)
	}
	res := p.run(t, cmdtest.Run{}, "/v1/orders", "--paginate", "--include", "--page-size", "1")
	want := []string{"HTTP 200 OK", "X-Page: 1", `{"page":"1"}`, "HTTP 200 OK", "X-Page: 2", `{"page":"2"}`}
	at := 0
	for _, line := range strings.Split(res.Out, "\n") {
		if at < len(want) && line == want[at] {
			at++
		}
	}
	if res.Code != 0 || at != len(want) {
		t.Fatalf("exit %d; want, in order, %q:\n%s%s", res.Code, want, res.Out, res.ErrOut)
	}
}

// Finding 12: a body that is not JSON, the items of --paginate and the
// headers of --include reach a terminal escaped, and a pipe exact.
func TestBodiesReachATerminalEscaped(t *testing.T) {
	const hostile = "x\x1b]0;owned\x07y\x1b[2J\u202eq"
	unsafe := func(s string) bool { return strings.ContainsAny(s, "\x1b\x07\u202e") }
	p := newPlatform(t, "")
	p.answer = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Note", "a\u202eb") // net/http refuses controls in a header
		if r.URL.Path == "/v1/list" {
			d, _ := json.Marshal(hostile)
			fmt.Fprintf(w, `{"data":[{"d":%s}],"hits":1}`, d)
			return
		}
		io.WriteString(w, hostile)
	}
	for _, args := range [][]string{{"/v1/text", "--include"}, {"/v1/list", "--paginate", "--include"}} {
		if res := p.run(t, cmdtest.Run{TTY: true}, args...); res.Code != 0 || unsafe(res.Out) || !strings.Contains(res.Out, "owned") {
			t.Errorf("%q on a terminal: exit %d, %q %s", args, res.Code, res.Out, res.ErrOut)
		}
	}
	if res := p.run(t, cmdtest.Run{}, "/v1/text"); res.Code != 0 || res.Out != hostile {
		t.Errorf("on a pipe the body is not exact: %q", res.Out)
	}
}

// A HEAD answered with the Content-Length a GET's body would have is read
// as the headers alone.
func TestHeadWithAContentLength(t *testing.T) {
	p := newPlatform(t, "")
	p.answer = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "42")
		w.Header().Set("X-Total", "7")
	}
	res := p.run(t, cmdtest.Run{}, "-X", "HEAD", "/v1/orders", "--include")
	if res.Code != 0 || !strings.Contains(res.Out, "X-Total: 7") {
		t.Fatalf("exit %d:\n%s%s", res.Code, res.Out, res.ErrOut)
	}
}
