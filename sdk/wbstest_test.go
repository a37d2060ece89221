package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func newClient(t *testing.T, srv *wbstest.Server, opts ...sdk.Option) *sdk.Client {
	t.Helper()
	opts = append([]sdk.Option{
		sdk.WithCredentials(srv.ClientID, srv.ClientSecret),
		sdk.WithRetryPolicy(sdk.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxRetryAfter: time.Millisecond}),
	}, opts...)
	c, err := sdk.NewClient(srv.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSixOperationsAgainstReferenceServer(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := newClient(t, srv)
	ctx := context.Background()
	code := "P-100/01 Ä" // a slash and a non-ASCII rune travel in the path
	orgs := []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B1", EntityType: "branch"}}
	ack, err := c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: code, Description: sdk.Ptr("Site"), BusinessOrganizations: orgs})
	if err != nil || ack.CorrelationID == "" {
		t.Fatalf("create: %v %+v", err, ack)
	}
	page, err := c.WBSElements.List(ctx, nil)
	if err != nil || len(page.Data) != 1 || page.Data[0].Code != code || !page.Data[0].IsActive || *page.Data[0].Description != "Site" {
		t.Fatalf("list: %v %+v", err, page)
	}
	if page.Hits == nil || *page.Hits != 1 || page.Next != nil {
		t.Fatalf("list envelope: hits %v next %v", page.Hits, page.Next)
	}
	if _, err := c.WBSElements.Update(ctx, code, &sdk.UpdateWBSElementRequest{Description: sdk.Null[string](), IsActive: sdk.Set(false)}); err != nil {
		t.Fatal(err)
	}
	el, _ := srv.Element(code)
	if el.Description != nil || el.IsActive {
		t.Fatalf("update not applied: %+v", el)
	}
	if _, err := c.WBSElements.DeleteBusinessOrganizations(ctx, code, &sdk.DeleteBusinessOrganizationsRequest{BusinessOrganizations: orgs[:1]}); err != nil {
		t.Fatal(err)
	}
	var links []sdk.BusinessOrganization
	for l, err := range c.WBSElements.AllBusinessOrganizations(ctx, code, nil) {
		if err != nil {
			t.Fatal(err)
		}
		links = append(links, l.BusinessOrganization())
	}
	if len(links) != 1 || links[0] != orgs[1] {
		t.Fatalf("links after removal: %v", links)
	}
	if _, err := c.WBSElements.Delete(ctx, code); err != nil {
		t.Fatal(err)
	}
	_, err = c.WBSElements.Delete(ctx, code)
	var apiErr *sdk.APIError
	if !errors.Is(err, sdk.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Problem == nil || apiErr.CorrelationID == "" {
		t.Fatalf("second delete: %v", err)
	}
	_, err = c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "DUP"})
	if err == nil {
		_, err = c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "DUP"})
	}
	if !errors.Is(err, sdk.ErrDuplicate) || errors.Is(err, sdk.ErrValidation) || !errors.As(err, &apiErr) || apiErr.Problem == nil {
		t.Fatalf("duplicate create: %v", err)
	}
	if fe := apiErr.Problem.FieldErrors; len(fe) != 1 || fe[0].Field != "wbsElementCode" || fe[0].Message == "" {
		t.Fatalf("duplicate create: field errors %+v", fe)
	}
}

func TestWalkThousandElementsInPagesOfSeven(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	for i := range 1000 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%04d", i), IsActive: true})
	}
	c := newClient(t, srv)
	i := 0
	for el, err := range c.WBSElements.All(context.Background(), &sdk.ListOptions{PageSize: 7}) {
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("E%04d", i); el.Code != want {
			t.Fatalf("item %d is %s, want %s", i, el.Code, want)
		}
		i++
	}
	if i != 1000 {
		t.Fatalf("walked %d elements, want 1000", i)
	}
	if got, want := srv.Stats().Requests[wbstest.OpList], 143; got != want { // ceil(1000/7)
		t.Fatalf("%d list requests, want %d", got, want)
	}
}

// With no options the iterators read pages of DefaultAllPageSize: 250
// elements take 3 requests, not the 25 of the platform's default page
// (issue 28, finding 3).
func TestAllDefaultsToTheLargestPageSize(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	orgs := make([]wbstest.BusinessOrganization, 250)
	for i := range 250 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%03d", i)})
		orgs[i] = wbstest.BusinessOrganization{Code: fmt.Sprintf("O%03d", i), EntityType: "company"}
	}
	srv.Put(wbstest.Element{Code: "LINKED", BusinessOrganizations: orgs})
	c := newClient(t, srv)
	n := 0
	for _, err := range c.WBSElements.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	links := 0
	for _, err := range c.WBSElements.AllBusinessOrganizations(context.Background(), "LINKED", nil) {
		if err != nil {
			t.Fatal(err)
		}
		links++
	}
	stats := srv.Stats().Requests
	if n != 251 || links != 250 || stats[wbstest.OpList] != 3 || stats[wbstest.OpListLinks] != 3 {
		t.Fatalf("%d elements in %d requests, %d links in %d; want 251 in 3, 250 in 3",
			n, stats[wbstest.OpList], links, stats[wbstest.OpListLinks])
	}
}

func TestEarlyBreakStopsFetching(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	for i := range 50 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%02d", i)})
	}
	c := newClient(t, srv)
	n := 0
	for _, err := range c.WBSElements.All(context.Background(), &sdk.ListOptions{PageSize: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 15 {
			break
		}
	}
	if got := srv.Stats().Requests[wbstest.OpList]; got != 2 {
		t.Fatalf("%d pages fetched for 15 items of pages of 10, want 2", got)
	}
}

func TestOneExchangeForHundredConcurrentCalls(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := newClient(t, srv)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.WBSElements.List(context.Background(), nil)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.Stats().TokenExchanges; got != 1 {
		t.Fatalf("%d token exchanges, want 1", got)
	}
}

func TestExpiredTokensAreRenewedOnce(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := newClient(t, srv)
	ctx := context.Background()
	if _, err := c.WBSElements.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	srv.ExpireTokens()
	if _, err := c.WBSElements.List(ctx, nil); err != nil {
		t.Fatalf("after ExpireTokens: %v", err)
	}
	if got := srv.Stats().TokenExchanges; got != 2 {
		t.Fatalf("%d exchanges, want 2", got)
	}
}

func TestBadCredentialAgainstReferenceServer(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, "wrong-secret"))
	_, err := c.WBSElements.List(context.Background(), nil)
	if !errors.Is(err, sdk.ErrInvalidCredentials) {
		t.Fatalf("err = %v", err)
	}
	if got := srv.Stats().Requests[wbstest.OpToken]; got != 1 {
		t.Fatalf("bad credential tried %d times, want 1", got)
	}
}

func TestFaultsAreHandledPerOperation(t *testing.T) {
	type check func(t *testing.T, srv *wbstest.Server, err error)
	created := func(n int) check {
		return func(t *testing.T, srv *wbstest.Server, err error) {
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if got := srv.Stats().Creates; got != n {
				t.Fatalf("%d creates stored, want %d", got, n)
			}
		}
	}
	unknown := func(stored int) check {
		return func(t *testing.T, srv *wbstest.Server, err error) {
			if !errors.Is(err, sdk.ErrOutcomeUnknown) {
				t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
			}
			if got := srv.Stats().Creates; got != stored {
				t.Fatalf("%d creates stored, want %d", got, stored)
			}
			if got := srv.Stats().Requests[wbstest.OpCreate]; got != 1 {
				t.Fatalf("create sent %d times, want once", got)
			}
		}
	}
	tests := []struct {
		name  string
		op    wbstest.Operation
		fault wbstest.FaultRule
		check check
	}{
		{"create 429", wbstest.OpCreate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 429, RetryAfter: time.Second}, created(1)},
		{"create 503 with Retry-After", wbstest.OpCreate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 503, RetryAfter: time.Second}, created(1)},
		{"create 500", wbstest.OpCreate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 500}, unknown(0)},
		{"create 502", wbstest.OpCreate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 502}, unknown(0)},
		{"create 504", wbstest.OpCreate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 504}, unknown(0)},
		{"create reset", wbstest.OpCreate, wbstest.FaultRule{Kind: wbstest.FaultReset}, unknown(0)},
		{"create dropped after commit", wbstest.OpCreate, wbstest.FaultRule{Kind: wbstest.FaultDropAfterCommit}, unknown(1)},
		{"update reset", wbstest.OpUpdate, wbstest.FaultRule{Kind: wbstest.FaultReset}, nil},
		{"update dropped after commit", wbstest.OpUpdate, wbstest.FaultRule{Kind: wbstest.FaultDropAfterCommit}, nil},
		{"update 502", wbstest.OpUpdate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 502}, nil},
		{"update 503", wbstest.OpUpdate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 503}, nil},
		{"update 504", wbstest.OpUpdate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 504}, nil},
		{"update 429", wbstest.OpUpdate, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 429}, nil},
		{"list reset", wbstest.OpList, wbstest.FaultRule{Kind: wbstest.FaultReset}, nil},
		{"delete links dropped", wbstest.OpDeleteLinks, wbstest.FaultRule{Kind: wbstest.FaultDropAfterCommit}, nil},
		{"delete 503", wbstest.OpDelete, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 503}, nil},
		{"token 502", wbstest.OpToken, wbstest.FaultRule{Kind: wbstest.FaultStatus, Status: 502}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wbstest.NewServer()
			defer srv.Close()
			srv.Put(wbstest.Element{Code: "X", IsActive: true, BusinessOrganizations: []wbstest.BusinessOrganization{{Code: "1", EntityType: "c"}}})
			tt.fault.Operation, tt.fault.Times = tt.op, 1
			srv.AddFaults(tt.fault)
			c := newClient(t, srv)
			ctx := context.Background()
			var err error
			switch tt.op {
			case wbstest.OpCreate:
				_, err = c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: "NEW"})
			case wbstest.OpUpdate:
				_, err = c.WBSElements.Update(ctx, "X", &sdk.UpdateWBSElementRequest{Description: sdk.Set("d")})
			case wbstest.OpList, wbstest.OpToken:
				_, err = c.WBSElements.List(ctx, nil)
			case wbstest.OpDeleteLinks:
				_, err = c.WBSElements.DeleteBusinessOrganizations(ctx, "X", &sdk.DeleteBusinessOrganizationsRequest{BusinessOrganizations: []sdk.BusinessOrganization{{Code: "1", EntityType: "c"}}})
			case wbstest.OpDelete:
				_, err = c.WBSElements.Delete(ctx, "X")
			}
			if srv.Stats().Faults[tt.fault.Kind] != 1 {
				t.Fatal("the fault did not fire")
			}
			if tt.check != nil {
				tt.check(t, srv, err)
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want the retry to succeed", err)
			}
			if got := srv.Stats().Requests[tt.op]; got != 2 {
				t.Fatalf("%s sent %d times, want 2", tt.op, got)
			}
		})
	}
}

func TestExecuteFlowAgainstReferenceServer(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithCredential("integrationhub-42", "secret-42"))
	defer srv.Close()
	c, _ := sdk.NewClient(srv.URL, sdk.WithCredentials("integrationhub-42", "secret-42"))
	flow, err := sdk.FlowIDFromClientID(c.ClientID())
	if err != nil || flow != "42" {
		t.Fatalf("flow id %q %v", flow, err)
	}
	out, err := c.Flows.Execute(context.Background(), flow, []byte(`{"a":1}`))
	if err != nil || len(out) == 0 {
		t.Fatalf("execute: %v", err)
	}
	if _, err := c.Flows.Execute(context.Background(), "43", nil); !errors.Is(err, sdk.ErrForbidden) {
		t.Fatalf("another flow: %v, want ErrForbidden", err)
	}
}

// The codes . and .. travel as %2E and %2E%2E, never as dot-segments that
// a proxy would resolve into another path; so does a flow id.
func TestDotSegmentCodesAreEscapedOnTheWire(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := newClient(t, srv)
	ctx := context.Background()
	for _, code := range []string{".", ".."} {
		if _, err := c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: code, BusinessOrganizations: []sdk.BusinessOrganization{{Code: "1", EntityType: "c"}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.WBSElements.Update(ctx, code, &sdk.UpdateWBSElementRequest{IsActive: sdk.Set(false)}); err != nil {
			t.Fatalf("update %q: %v", code, err)
		}
		if _, err := collect(c.WBSElements.AllBusinessOrganizations(ctx, code, nil)); err != nil {
			t.Fatalf("links of %q: %v", code, err)
		}
		if _, err := c.WBSElements.Delete(ctx, code); err != nil {
			t.Fatalf("delete %q: %v", code, err)
		}
	}
	_, _ = c.Flows.Execute(ctx, "..", nil)
	for _, e := range srv.Journal() {
		raw := e.Path
		if e.RawPath != "" {
			raw = e.RawPath
		}
		for _, seg := range strings.Split(raw, "/") {
			if seg == "." || seg == ".." {
				t.Errorf("%s %s went out with a dot-segment", e.Method, raw)
			}
		}
	}
	if len(srv.Elements()) != 0 {
		t.Fatalf("left %v", srv.Elements())
	}
}
