package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"testing"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// reading is one plausible reading of the spec's open points on lists.
type reading struct {
	next    wbstest.NextStyle
	hits    wbstest.HitsMeaning
	empty   int
	pastEnd wbstest.PastEnd
	orgMode wbstest.OrgUpdateMode
	// maxPageSize is the server's silent cap on the page size.
	maxPageSize int
}

func (r reading) String() string {
	mode := "merge"
	if r.orgMode == wbstest.OrgReplace {
		mode = "replace"
	}
	return fmt.Sprintf("next=%s/hits=%s/empty=%d/past-end=%s/org=%s/max=%d", r.next, r.hits, r.empty, r.pastEnd, mode, r.maxPageSize)
}

func (r reading) options() []wbstest.Option {
	return []wbstest.Option{wbstest.WithNextStyle(r.next), wbstest.WithHitsMeaning(r.hits), wbstest.WithEmptyListStatus(r.empty),
		wbstest.WithPastEnd(r.pastEnd), wbstest.WithOrgUpdateMode(r.orgMode), wbstest.WithMaxPageSize(r.maxPageSize)}
}

// revealsCap reports whether a platform of this reading shows that a page
// shorter than asked is not the last: its next names a following page, or
// its hits is the total. A platform with neither, that also caps the page
// size silently, cannot be read whole by any client, and is left out.
func (r reading) revealsCap() bool {
	return (r.next != wbstest.NextNull && r.next != wbstest.NextAbsent) || r.hits == wbstest.HitsTotal
}

// everyReading is the product of every next style, hits meaning,
// empty-list status, past-the-end answer, link-update mode and page-size
// cap (none, or 5).
func everyReading() []reading {
	var all []reading
	for next := wbstest.NextURL; next <= wbstest.NextAbsent; next++ {
		for hits := wbstest.HitsTotal; hits <= wbstest.HitsNull; hits++ {
			for _, empty := range []int{http.StatusOK, http.StatusNotFound} {
				for pastEnd := wbstest.PastEndEmpty; pastEnd <= wbstest.PastEndLastPage; pastEnd++ {
					for _, mode := range []wbstest.OrgUpdateMode{wbstest.OrgMerge, wbstest.OrgReplace} {
						for _, maxSize := range []int{100, 5} {
							r := reading{next, hits, empty, pastEnd, mode, maxSize}
							if maxSize < 100 && !r.revealsCap() {
								continue
							}
							all = append(all, r)
						}
					}
				}
			}
		}
	}
	return all
}

func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// TestListsUnderEveryReading: whichever way the platform reads next, hits,
// an empty list, a page past the end and the page size, All and
// AllBusinessOrganizationsOfExisting yield every item once, in order,
// with no error, in at most one request more than the pages needed.
func TestListsUnderEveryReading(t *testing.T) {
	ctx := context.Background()
	for _, r := range everyReading() {
		t.Run(r.String(), func(t *testing.T) {
			t.Parallel()
			for _, size := range []int{1, 7, 10, 100} {
				lengths := []int{0, 1, size - 1, size, size + 1, 2 * size, 237}
				for _, n := range lengths {
					if n < 0 || (n == 0 && size == 1 && false) {
						continue
					}
					srv := wbstest.New(r.options()...)
					c, err := sdk.NewClient("http://platform.test", sdk.WithCredentials(srv.ClientID, srv.ClientSecret),
						sdk.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
					if err != nil {
						t.Fatal(err)
					}
					orgs := make([]wbstest.BusinessOrganization, n)
					for i := range n {
						srv.Put(wbstest.Element{Code: fmt.Sprintf("E%04d", i)})
						orgs[i] = wbstest.BusinessOrganization{Code: fmt.Sprintf("O%04d", i), EntityType: "branch"}
					}
					perPage := min(size, r.maxPageSize)
					pages := max((n+perPage-1)/perPage, 1)

					srv.ResetStats()
					els, err := collect(c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: size}))
					if err != nil {
						t.Fatalf("size %d, %d elements: All: %v", size, n, err)
					}
					if len(els) != n {
						t.Fatalf("size %d, %d elements: All yielded %d", size, n, len(els))
					}
					for i, el := range els {
						if want := fmt.Sprintf("E%04d", i); el.Code != want {
							t.Fatalf("size %d, %d elements: item %d is %s, want %s", size, n, i, el.Code, want)
						}
					}
					if got := srv.Stats().Requests[wbstest.OpList]; got > pages+1 {
						t.Errorf("size %d, %d elements: %d list requests, want at most %d", size, n, got, pages+1)
					}

					srv.Put(wbstest.Element{Code: "LINKED", BusinessOrganizations: orgs})
					srv.ResetStats()
					links, err := collect(c.WBSElements.AllBusinessOrganizationsOfExisting(ctx, "LINKED", &sdk.ListOptions{PageSize: size}))
					if err != nil {
						t.Fatalf("size %d, %d links: %v", size, n, err)
					}
					if len(links) != n {
						t.Fatalf("size %d, %d links: yielded %d", size, n, len(links))
					}
					for i, l := range links {
						if want := fmt.Sprintf("O%04d", i); l.Code == nil || *l.Code != want {
							t.Fatalf("size %d, %d links: link %d is %v, want %s", size, n, i, l.Code, want)
						}
					}
					if got := srv.Stats().Requests[wbstest.OpListLinks]; got > pages+1 {
						t.Errorf("size %d, %d links: %d requests, want at most %d", size, n, got, pages+1)
					}
				}
			}
		})
	}
}

// The three readings under which the SDK once returned a short list with
// no error.

func TestReadingNextIsAnAllDigitCursor(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithNextStyle(wbstest.NextOffset))
	defer srv.Close()
	for i := range 237 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%03d", i)})
	}
	els, err := collect(newClient(t, srv).WBSElements.All(context.Background(), &sdk.ListOptions{PageSize: 10}))
	if err != nil || len(els) != 237 {
		t.Fatalf("All: %d elements, %v; want 237", len(els), err)
	}
}

func TestReadingNextAlwaysNullHitsPageCount(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithNextStyle(wbstest.NextNull), wbstest.WithHitsMeaning(wbstest.HitsPageCount))
	defer srv.Close()
	for i := range 25 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%03d", i)})
	}
	els, err := collect(newClient(t, srv).WBSElements.All(context.Background(), &sdk.ListOptions{PageSize: 10}))
	if err != nil || len(els) != 25 {
		t.Fatalf("All: %d elements, %v; want 25", len(els), err)
	}
}

func TestReadingEmptyListIsNotFound(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithEmptyListStatus(http.StatusNotFound))
	defer srv.Close()
	c := newClient(t, srv)
	ctx := context.Background()
	if els, err := collect(c.WBSElements.All(ctx, nil)); err != nil || len(els) != 0 {
		t.Fatalf("All on an empty platform: %v, %v; want nothing and no error", els, err)
	}
	if page, err := c.WBSElements.List(ctx, nil); err != nil || len(page.Data) != 0 {
		t.Fatalf("List on an empty platform: %+v, %v; want an empty page", page, err)
	}
	srv.Put(wbstest.Element{Code: "NOLINKS"})
	if links, err := collect(c.WBSElements.AllBusinessOrganizationsOfExisting(ctx, "NOLINKS", nil)); err != nil || len(links) != 0 {
		t.Fatalf("links of an element without any: %v, %v; want nothing and no error", links, err)
	}
	// Without the caller's knowledge that the element exists, the 404 is
	// the platform's own answer.
	if _, err := collect(c.WBSElements.AllBusinessOrganizations(ctx, "NOLINKS", nil)); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("AllBusinessOrganizations: %v, want ErrNotFound", err)
	}
	if _, err := collect(c.WBSElements.AllBusinessOrganizations(ctx, "MISSING", nil)); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("links of a missing element: %v, want ErrNotFound", err)
	}
}

// A platform that clamps pageNumber answers a page past the end with the
// last page again; read only because the end was not proven, it ends the
// list.
func TestReadingPastEndRepeatsTheLastPage(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithNextStyle(wbstest.NextAbsent), wbstest.WithHitsMeaning(wbstest.HitsNull),
		wbstest.WithPastEnd(wbstest.PastEndLastPage))
	defer srv.Close()
	for i := range 200 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%03d", i)})
	}
	srv.ResetStats()
	els, err := collect(newClient(t, srv).WBSElements.All(context.Background(), &sdk.ListOptions{PageSize: 100}))
	if err != nil || len(els) != 200 {
		t.Fatalf("All: %d elements, %v; want 200", len(els), err)
	}
	if got := srv.Stats().Requests[wbstest.OpList]; got != 3 {
		t.Fatalf("%d requests, want 3", got)
	}
}

// A platform that caps the page size silently, with hits the total: every
// page looks short, and the total carries the list on.
func TestReadingPageSizeCappedSilently(t *testing.T) {
	srv := wbstest.NewServer(wbstest.WithNextStyle(wbstest.NextAbsent), wbstest.WithMaxPageSize(50))
	defer srv.Close()
	for i := range 237 {
		srv.Put(wbstest.Element{Code: fmt.Sprintf("E%03d", i)})
	}
	srv.ResetStats()
	els, err := collect(newClient(t, srv).WBSElements.All(context.Background(), &sdk.ListOptions{PageSize: 100}))
	if err != nil || len(els) != 237 {
		t.Fatalf("All: %d elements, %v; want 237", len(els), err)
	}
	if got := srv.Stats().Requests[wbstest.OpList]; got != 5 {
		t.Fatalf("%d requests, want 5", got)
	}
}

// A platform that clamps pageNumber, read while an element is deleted:
// the page after the first is past the new end and repeats the first. Its
// own next and hits show the list ends there, so the list ends with what
// it holds, under every next and hits reading that promised the page.
func TestReadingPastEndAfterTheListShrank(t *testing.T) {
	for next := wbstest.NextURL; next <= wbstest.NextAbsent; next++ {
		for hits := wbstest.HitsTotal; hits <= wbstest.HitsNull; hits++ {
			t.Run(fmt.Sprintf("next=%s/hits=%s", next, hits), func(t *testing.T) {
				srv := wbstest.NewServer(wbstest.WithNextStyle(next), wbstest.WithHitsMeaning(hits),
					wbstest.WithPastEnd(wbstest.PastEndLastPage))
				defer srv.Close()
				srv.Put(wbstest.Element{Code: "E0"}, wbstest.Element{Code: "E1"}, wbstest.Element{Code: "E2"})
				c := newClient(t, srv)
				ctx := context.Background()
				var got []string
				for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 2}) {
					if err != nil {
						t.Fatalf("after %v: %v", got, err)
					}
					got = append(got, el.Code)
					if len(got) == 1 {
						if _, err := c.WBSElements.Delete(ctx, "E2"); err != nil {
							t.Fatal(err)
						}
					}
				}
				if want := []string{"E0", "E1"}; !slices.Equal(got, want) {
					t.Fatalf("read %v, want %v", got, want)
				}
			})
		}
	}
}
