package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// recordingTransport sends to a reference server in memory and records
// the URL of every request.
type recordingTransport struct {
	srv *wbstest.Server

	mu   sync.Mutex
	urls []string
}

func (t *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.urls = append(t.urls, r.URL.String())
	t.mu.Unlock()
	return t.srv.Transport().RoundTrip(r)
}

func (t *recordingTransport) sent() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.urls)
}

// resumeClient is a new client of srv at baseURL, as a process that
// resumes a walk makes one, and what it sends.
func resumeClient(t *testing.T, srv *wbstest.Server, baseURL string) (*Client, *recordingTransport) {
	t.Helper()
	rt := &recordingTransport{srv: srv}
	c, err := NewClient(baseURL, WithCredentials(srv.ClientID, srv.ClientSecret), WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	return c, rt
}

// throughJSON saves c as a program would, in a JSON file of its own, and
// reads it back.
func throughJSON(t *testing.T, c Cursor) Cursor {
	t.Helper()
	b, err := json.Marshal(struct {
		Cursor Cursor `json:"cursor"`
	}{c})
	if err != nil {
		t.Fatal(err)
	}
	var saved struct {
		Cursor string `json:"cursor"`
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	return Cursor(saved.Cursor)
}

func elementCodes(n int) []string {
	codes := make([]string, n)
	for i := range codes {
		codes[i] = fmt.Sprintf("E%04d", i)
	}
	return codes
}

// A walk of the element list that stops after its second page (a failure)
// saves the cursor of the page after it as a string, through JSON; a new
// client resumes from it and reads exactly the elements left, once each,
// in order, whatever the platform's next, hits, page past the end and
// page-size cap, in the requests a walk that never stopped takes: with
// 350 elements, exactly the pages needed. With 200, the walk stops after
// the last page, and a platform that answers a page past the end with the
// last page again is recognised by the cursor's fingerprint of that page.
func TestResumeFromASavedCursor(t *testing.T) {
	ctx := context.Background()
	const base = "http://platform.test"
	for next := wbstest.NextURL; next <= wbstest.NextAbsent; next++ {
		for hits := wbstest.HitsTotal; hits <= wbstest.HitsNull; hits++ {
			for pastEnd := wbstest.PastEndEmpty; pastEnd <= wbstest.PastEndLastPage; pastEnd++ {
				for _, maxSize := range []int{100, 50} {
					revealsCap := (next != wbstest.NextNull && next != wbstest.NextAbsent) || hits == wbstest.HitsTotal
					if maxSize < 100 && !revealsCap {
						continue // no client can read it whole (see everyReading)
					}
					name := fmt.Sprintf("next=%s/hits=%s/past-end=%s/max=%d", next, hits, pastEnd, maxSize)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						for _, n := range []int{350, 300, 200} {
							srv := wbstest.New(wbstest.WithNextStyle(next), wbstest.WithHitsMeaning(hits),
								wbstest.WithPastEnd(pastEnd), wbstest.WithMaxPageSize(maxSize))
							for _, code := range elementCodes(n) {
								srv.Put(wbstest.Element{Code: code})
							}
							opts := &ListOptions{PageSize: 100}

							// The requests of a walk that never stops.
							c, rt := resumeClient(t, srv, base)
							if els, err := collectItems(c.WBSElements.All(ctx, opts)); err != nil || len(els) != n {
								t.Fatalf("%d elements: an uninterrupted All: %d, %v", n, len(els), err)
							}
							whole := len(rt.sent()) - 1 // less the token exchange

							c, rt = resumeClient(t, srv, base)
							var got []string
							var saved Cursor
							pages := 0
							for page, err := range c.WBSElements.AllPages(ctx, opts) {
								if err != nil {
									t.Fatalf("%d elements: page %d: %v", n, pages+1, err)
								}
								for _, el := range page.Data {
									got = append(got, el.Code)
								}
								saved = "" // past the end unless the page names the next
								if cur, ok := page.NextCursor(); ok {
									saved = throughJSON(t, cur)
								}
								if pages++; pages == 2 {
									break // a failure
								}
							}
							before := len(rt.sent()) - 1

							after := 0
							if saved != "" {
								c, rt = resumeClient(t, srv, base)
								for el, err := range c.WBSElements.All(ctx, &ListOptions{Cursor: saved}) {
									if err != nil {
										t.Fatalf("%d elements: resumed after %d: %v", n, len(got), err)
									}
									got = append(got, el.Code)
								}
								after = len(rt.sent()) - 1
							}
							if want := elementCodes(n); !slices.Equal(got, want) {
								t.Fatalf("%d elements: read %d, want %d in order, once each:\n%v", n, len(got), len(want), got)
							}
							if before+after != whole {
								t.Errorf("%d elements: %d requests before the failure and %d after, want %d in all", n, before, after, whole)
							}
							if perPage := min(100, maxSize); n == 350 && before+after != (n+perPage-1)/perPage {
								t.Errorf("%d elements: %d requests, want the %d pages", n, before+after, (n+perPage-1)/perPage)
							}
						}
					})
				}
			}
		}
	}
}

func collectItems[T any](seq func(func(T, error) bool)) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// List, NextCursor and a new client walk the list a page at a time from a
// saved cursor, and so does the links list, each from its own cursor.
func TestResumeWithList(t *testing.T) {
	ctx := context.Background()
	for _, next := range []wbstest.NextStyle{wbstest.NextURL, wbstest.NextRelativeURL, wbstest.NextCursor, wbstest.NextNull} {
		t.Run(next.String(), func(t *testing.T) {
			srv := wbstest.New(wbstest.WithNextStyle(next), wbstest.WithHitsMeaning(wbstest.HitsNull),
				wbstest.WithPastEnd(wbstest.PastEndLastPage))
			orgs := make([]wbstest.BusinessOrganization, 25)
			for i := range orgs {
				orgs[i] = wbstest.BusinessOrganization{Code: fmt.Sprintf("O%04d", i), EntityType: "branch"}
			}
			for _, code := range elementCodes(30) {
				srv.Put(wbstest.Element{Code: code, BusinessOrganizations: orgs})
			}
			var codes []string
			var links []string
			cursor, linksCursor := Cursor(""), Cursor("")
			for range 10 {
				c, _ := resumeClient(t, srv, "http://platform.test")
				page, err := c.WBSElements.List(ctx, &ListOptions{PageSize: 10, Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				for _, el := range page.Data {
					codes = append(codes, el.Code)
				}
				cur, ok := page.NextCursor()
				if !ok {
					break
				}
				cursor = throughJSON(t, cur)
			}
			for range 10 {
				c, _ := resumeClient(t, srv, "http://platform.test")
				page, err := c.WBSElements.ListBusinessOrganizations(ctx, "E0007", &ListOptions{PageSize: 5, Cursor: linksCursor})
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range page.Data {
					links = append(links, *l.Code)
				}
				cur, ok := page.NextCursor()
				if !ok {
					break
				}
				linksCursor = cur
			}
			if want := elementCodes(30); !slices.Equal(codes, want) {
				t.Fatalf("read %v, want %v", codes, want)
			}
			var want []string
			for _, o := range orgs {
				want = append(want, o.Code)
			}
			if !slices.Equal(links, want) {
				t.Fatalf("links %v, want %v", links, want)
			}
		})
	}
}

// A cursor is tied to the client's base URL, to its list and to the page
// size it was made with: otherwise it is a *ValidationError, and nothing
// is sent, above all not the token to another origin.
func TestCursorRefused(t *testing.T) {
	ctx := context.Background()
	srv := wbstest.New()
	for _, code := range elementCodes(350) {
		srv.Put(wbstest.Element{Code: code})
	}
	srv.Put(wbstest.Element{Code: "LINKED", BusinessOrganizations: []wbstest.BusinessOrganization{
		{Code: "O1", EntityType: "branch"}, {Code: "O2", EntityType: "branch"}}})
	c, _ := resumeClient(t, srv, "http://platform.test")
	page, err := c.WBSElements.List(ctx, &ListOptions{PageNumber: 2, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	cursor, ok := page.NextCursor()
	if !ok {
		t.Fatal("no cursor after page 2 of 4")
	}
	links, err := c.WBSElements.ListBusinessOrganizations(ctx, "LINKED", &ListOptions{PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	linksCursor, ok := links.NextCursor()
	if !ok {
		t.Fatal("no cursor after the first link of two")
	}
	st, err := cursor.state()
	if err != nil {
		t.Fatal(err)
	}
	forged := func(u string) Cursor {
		f := *st
		f.URL = u
		return f.cursor()
	}

	tests := []struct {
		name    string
		baseURL string
		opts    ListOptions
	}{
		{"another host in the cursor", "http://platform.test", ListOptions{Cursor: forged("http://evil.example/v1/wbs-elements?pageNumber=3&pageSize=100")}},
		{"another port in the cursor", "http://platform.test", ListOptions{Cursor: forged("http://platform.test:8080/v1/wbs-elements?pageNumber=3&pageSize=100")}},
		{"another scheme in the cursor", "http://platform.test", ListOptions{Cursor: forged("https://platform.test/v1/wbs-elements?pageNumber=3&pageSize=100")}},
		{"a user in the cursor", "http://platform.test", ListOptions{Cursor: forged("http://user:pw@platform.test/v1/wbs-elements?pageNumber=3&pageSize=100")}},
		{"the token endpoint", "http://platform.test", ListOptions{Cursor: forged("http://platform.test/v1/auth/tokens?pageNumber=3")}},
		{"a client of another base URL", "http://other.test", ListOptions{Cursor: cursor}},
		{"a client of another base path", "http://platform.test/api", ListOptions{Cursor: cursor}},
		{"the cursor of an element's links", "http://platform.test", ListOptions{Cursor: linksCursor}},
		{"another page size", "http://platform.test", ListOptions{Cursor: cursor, PageSize: 50}},
		{"another page number", "http://platform.test", ListOptions{Cursor: cursor, PageNumber: 2}},
		{"no cursor", "http://platform.test", ListOptions{Cursor: "page-3"}},
		{"a cursor cut short", "http://platform.test", ListOptions{Cursor: cursor[:len(cursor)-5]}},
		{"a cursor of another version", "http://platform.test", ListOptions{Cursor: "2" + cursor[1:]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rt := resumeClient(t, srv, tt.baseURL)
			opts := tt.opts
			calls := map[string]error{}
			_, calls["List"] = c.WBSElements.List(ctx, &opts)
			for _, err := range c.WBSElements.All(ctx, &opts) {
				calls["All"] = err
				break
			}
			for _, err := range c.WBSElements.AllPages(ctx, &opts) {
				calls["AllPages"] = err
				break
			}
			for name, err := range calls {
				var ve *ValidationError
				if !errors.As(err, &ve) || !errors.Is(err, ErrValidation) {
					t.Errorf("%s: %v, want a *ValidationError", name, err)
				}
			}
			if sent := rt.sent(); len(sent) > 0 {
				t.Fatalf("sent %v for a cursor refused", sent)
			}
		})
	}

	// The element list's cursor on the links list, too.
	for _, err := range c.WBSElements.AllBusinessOrganizationsOfExisting(ctx, "LINKED", &ListOptions{Cursor: cursor}) {
		if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "cursor") {
			t.Fatalf("the element list's cursor on the links: %v, want a *ValidationError", err)
		}
		break
	}

	// What the cursor was made with is accepted: its page, the size
	// asked, and the base URL's origin however its host is spelt.
	for _, opts := range []ListOptions{{Cursor: cursor}, {Cursor: cursor, PageNumber: 3, PageSize: 100}} {
		c, _ := resumeClient(t, srv, "http://PLATFORM.test")
		page, err := c.WBSElements.List(ctx, &opts)
		if err != nil || len(page.Data) != 100 || page.Data[0].Code != "E0200" || page.PageNumber != 3 {
			t.Fatalf("List(%+v): %v", opts, err)
		}
	}
}

// NextOptions carries the cursor: options copied whole read the same page
// as the cursor alone, and the cursor of a page is the same every time it
// is asked for.
func TestNextOptionsCarryTheCursor(t *testing.T) {
	ctx := context.Background()
	srv := wbstest.New(wbstest.WithNextStyle(wbstest.NextRelativeURL))
	for _, code := range elementCodes(25) {
		srv.Put(wbstest.Element{Code: code})
	}
	c, _ := resumeClient(t, srv, "http://platform.test")
	page, err := c.WBSElements.List(ctx, &ListOptions{PageSize: 10, MaxPages: 7})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := page.NextOptions()
	cur, _ := page.NextCursor()
	again, _ := page.NextCursor()
	if !ok || o.Cursor == "" || o.Cursor != cur || cur != again || o.PageNumber != 2 || o.PageSize != 10 || o.MaxPages != 7 {
		t.Fatalf("NextOptions %+v, NextCursor %q then %q", o, cur, again)
	}
	copied := *o
	page, err = c.WBSElements.List(ctx, &copied)
	if err != nil || page.PageNumber != 2 || page.Data[0].Code != "E0010" {
		t.Fatalf("the page after the first: %+v, %v", page, err)
	}
}

// A cursor is made after a page of its list: the page it names past the
// end of an element's links, answered with 404, ends the list, where a
// 404 on the first page of AllBusinessOrganizations is ErrNotFound.
func TestResumeLinksPastTheEnd(t *testing.T) {
	ctx := context.Background()
	srv := wbstest.New(wbstest.WithNextStyle(wbstest.NextNull), wbstest.WithHitsMeaning(wbstest.HitsNull),
		wbstest.WithPastEnd(wbstest.PastEndNotFound))
	srv.Put(wbstest.Element{Code: "LINKED", BusinessOrganizations: []wbstest.BusinessOrganization{
		{Code: "O1", EntityType: "branch"}, {Code: "O2", EntityType: "branch"}}})
	c, _ := resumeClient(t, srv, "http://platform.test")
	page, err := c.WBSElements.ListBusinessOrganizations(ctx, "LINKED", &ListOptions{PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	cursor, ok := page.NextCursor()
	if !ok {
		t.Fatal("a full page without proof of the end has no cursor")
	}
	c, rt := resumeClient(t, srv, "http://platform.test")
	links, err := collectItems(c.WBSElements.AllBusinessOrganizations(ctx, "LINKED", &ListOptions{Cursor: cursor}))
	if err != nil || len(links) != 0 {
		t.Fatalf("resumed past the end: %v, %v; want nothing and no error", links, err)
	}
	page, err = c.WBSElements.ListBusinessOrganizations(ctx, "LINKED", &ListOptions{Cursor: cursor})
	if err != nil || len(page.Data) != 0 {
		t.Fatalf("List past the end: %+v, %v; want an empty page", page, err)
	}
	if _, ok := page.NextCursor(); ok {
		t.Fatal("an empty page has a cursor after it")
	}
	if got := len(rt.sent()); got != 3 {
		t.Fatalf("%d requests, want a token and two pages", got)
	}
}

// DoPages resumes from a cursor of the same list, as the api command's
// --paginate would: the raw items after the cursor's page, no other.
func TestDoPagesResumesFromACursor(t *testing.T) {
	ctx := context.Background()
	for _, next := range []wbstest.NextStyle{wbstest.NextURL, wbstest.NextCursor} {
		t.Run(next.String(), func(t *testing.T) {
			srv := wbstest.New(wbstest.WithNextStyle(next))
			for _, code := range elementCodes(25) {
				srv.Put(wbstest.Element{Code: code})
			}
			c, _ := resumeClient(t, srv, "http://platform.test")
			page, err := c.WBSElements.List(ctx, &ListOptions{PageSize: 10})
			if err != nil {
				t.Fatal(err)
			}
			cursor, ok := page.NextCursor()
			if !ok {
				t.Fatal("no cursor after the first page")
			}
			c, _ = resumeClient(t, srv, "http://platform.test")
			var codes []string
			for raw, err := range c.DoPages(ctx, &RawRequest{Path: "/v1/wbs-elements"}, &ListOptions{Cursor: throughJSON(t, cursor)}) {
				if err != nil {
					t.Fatal(err)
				}
				var el struct{ WbsElementCode string }
				if err := json.Unmarshal(raw, &el); err != nil {
					t.Fatal(err)
				}
				codes = append(codes, el.WbsElementCode)
			}
			if want := elementCodes(25)[10:]; !slices.Equal(codes, want) {
				t.Fatalf("DoPages from the cursor read %v, want %v", codes, want)
			}
		})
	}
}
