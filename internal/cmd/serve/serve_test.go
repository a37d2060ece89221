package serve

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// start runs runServe with opts until stop, which returns its error; it
// fails the test if the server ends before it is ready.
func start(t *testing.T, opts *Options) (base string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	opts.Addr = "127.0.0.1:0"
	opts.Ready = func(u string) { ready <- u }
	go func() { done <- runServe(ctx, opts) }()
	select {
	case base = <-ready:
	case err := <-done:
		cancel()
		t.Fatal(err)
	}
	return base, func() error { cancel(); return <-done }
}

func TestServeAnswersAndStopsCleanly(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	base, stop := start(t, &Options{
		Deps: cmdutil.Deps{IO: io}, Credentials: []string{"integrationhub-9=top-secret"},
		TokenLifetime: time.Hour, OrgUpdate: "replace", MaxPageSize: 100,
	})
	c, err := sdk.NewClient(base, sdk.WithCredentials("integrationhub-9", "top-secret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: "S-1"}); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); first != base {
		t.Fatalf("first line %q, want the base URL %q", first, base)
	}
	if strings.Contains(out.String()+errOut.String(), "top-secret") {
		t.Fatal("a given secret was printed")
	}
	if !strings.Contains(errOut.String(), "path=/v1/wbs-elements") || strings.Contains(errOut.String(), "Bearer") {
		t.Fatalf("request log: %s", errOut.String())
	}
}

func TestServeGeneratesAndPrintsACredential(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	base, stop := start(t, &Options{Deps: cmdutil.Deps{IO: io}, OrgUpdate: "merge", TokenLifetime: time.Minute})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "client id:     integrationhub-") || !strings.HasPrefix(lines[2], "client secret: ") {
		t.Fatalf("output %q (base %s)", out.String(), base)
	}
	// The line a newcomer pastes to use it, which works as pasted.
	id, secret := strings.TrimPrefix(lines[1], "client id:     "), strings.TrimPrefix(lines[2], "client secret: ")
	want := "export WBSCTL_BASE_URL=" + base + " WBSCTL_CLIENT_ID=" + id + " WBSCTL_CLIENT_SECRET=" + secret
	if !slices.Contains(lines, want) {
		t.Fatalf("no line %q in %q", want, out.String())
	}
}

func TestServeStartsWithGeneratedElements(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	base, stop := start(t, &Options{
		Deps: cmdutil.Deps{IO: io}, Credentials: []string{"integrationhub-9=top-secret"},
		TokenLifetime: time.Hour, OrgUpdate: "merge", MaxPageSize: 100, Elements: 25,
	})
	c, err := sdk.NewClient(base, sdk.WithCredentials("integrationhub-9", "top-secret"))
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for el, err := range c.WBSElements.All(context.Background(), &sdk.ListOptions{PageSize: 7}) {
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, el.Code)
		if el.Code == "E-0000005" && el.Description != nil || el.Code == "E-0000003" && el.IsActive {
			t.Errorf("%+v: every fifth has no description, every third is inactive", el)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if len(codes) != 25 || codes[0] != "E-0000001" || codes[24] != "E-0000025" {
		t.Fatalf("listed %v", codes)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	for _, opts := range []*Options{
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "sometimes"},
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "merge", Credentials: []string{"no-secret"}},
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "merge", Faults: []string{"kind=explode"}},
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "merge", Next: "link"},
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "merge", Hits: "some"},
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "merge", EmptyList: "204"},
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "merge", PastEnd: "wrap"},
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "merge", MaxPageSize: -1},
		{Deps: cmdutil.Deps{IO: io}, Addr: "127.0.0.1:0", OrgUpdate: "merge", RateWindow: "rolling"},
	} {
		if err := runServe(context.Background(), opts); err == nil {
			t.Errorf("%+v: no error", opts)
		}
	}
}

// Each reading of lists is read by the name its String gives, which the
// flags' help lists; an unknown name is refused naming them all.
func TestListReadingsByName(t *testing.T) {
	for _, v := range nextStyles {
		if got, err := byName("next style", v.String(), nextStyles); err != nil || got != v {
			t.Errorf("--next %s: %v, %v", v, got, err)
		}
	}
	for _, v := range hitsMeanings {
		if got, err := byName("hits meaning", v.String(), hitsMeanings); err != nil || got != v {
			t.Errorf("--hits %s: %v, %v", v, got, err)
		}
	}
	for _, v := range pastEnds {
		if got, err := byName("past-the-end answer", v.String(), pastEnds); err != nil || got != v {
			t.Errorf("--past-end %s: %v, %v", v, got, err)
		}
	}
	_, err := listReadings(&Options{Next: "link"})
	if err == nil || !strings.Contains(err.Error(), `--next: unknown next style "link": want one of url, relative, page, offset, cursor, null, absent`) {
		t.Errorf("--next link: %v", err)
	}
}

func TestParseFault(t *testing.T) {
	r, err := ParseFault("op=create,kind=status,status=503,retry-after=2s,probability=0.1,times=3")
	want := wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultStatus, Status: 503, RetryAfter: 2 * time.Second, Probability: 0.1, Times: 3}
	if err != nil || r != want {
		t.Fatalf("%+v %v", r, err)
	}
	for _, bad := range []string{"", "kind=status", "kind=status,status=200", "op=create", "kind=reset,colour=red", "kind=latency,latency=soon"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
