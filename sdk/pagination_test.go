package sdk

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// NextOptions keeps the whole query of a same-origin next URL, as All
// follows it: a cursor is not lost (issue 23, finding 26).
func TestNextOptionsKeepsTheNextURLsQuery(t *testing.T) {
	var mu sync.Mutex
	var queries []string
	c, _ := listServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Query().Get("cursor") == "" {
			fmt.Fprint(w, `{"data":[{"wbsElementCode":"A","isActive":true},{"wbsElementCode":"B","isActive":true}],"hits":null,
				"next":"/v1/wbs-elements?cursor=after-B&pageNumber=2&pageSize=2"}`)
			return
		}
		fmt.Fprint(w, `{"data":[{"wbsElementCode":"C","isActive":true}],"hits":null,"next":null}`)
	})
	ctx := context.Background()
	for el, err := range c.WBSElements.All(ctx, &ListOptions{PageSize: 2}) {
		if err != nil {
			t.Fatal(el, err)
		}
	}
	page, err := c.WBSElements.List(ctx, &ListOptions{PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	next, ok := page.NextOptions()
	if !ok {
		t.Fatal("no next options for a page whose next promises more")
	}
	page, err = c.WBSElements.List(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].Code != "C" || page.PageNumber != 2 {
		t.Fatalf("the page after the cursor: %+v", page)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(queries) != 4 || queries[3] != queries[1] || queries[3] != "cursor=after-B&pageNumber=2&pageSize=2" {
		t.Fatalf("queries %q: want List to send the next URL's query as All does", queries)
	}
}

// A negative page number, size or bound is refused before anything is
// sent, by List, the iterators and DoPages alike (issue 28, finding 4).
func TestNegativeListOptionsAreValidationErrors(t *testing.T) {
	c, n := listServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data":[],"hits":0,"next":null}`)
	})
	ctx := context.Background()
	for _, opts := range []*ListOptions{{PageSize: -5, PageNumber: -1}, {PageSize: -1}, {PageNumber: -1}, {MaxPages: -1}} {
		calls := map[string]error{}
		_, calls["List"] = c.WBSElements.List(ctx, opts)
		_, calls["ListBusinessOrganizations"] = c.WBSElements.ListBusinessOrganizations(ctx, "A", opts)
		for name, seq := range map[string]func(func(any, error) bool){
			"All":                      anySeq(c.WBSElements.All(ctx, opts)),
			"AllBusinessOrganizations": anySeq(c.WBSElements.AllBusinessOrganizations(ctx, "A", opts)),
			"DoPages":                  anySeq(c.DoPages(ctx, &RawRequest{Path: "/v1/orders"}, opts)),
		} {
			for _, err := range seq {
				calls[name] = err
				break
			}
		}
		for name, err := range calls {
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrValidation) {
				t.Errorf("%s(%+v): err = %v, want a *ValidationError", name, *opts, err)
			}
		}
	}
	if got := n.Load(); got != 0 {
		t.Fatalf("%d requests sent for invalid options", got)
	}
}

func anySeq[T any](seq func(func(T, error) bool)) func(func(any, error) bool) {
	return func(yield func(any, error) bool) {
		for v, err := range seq {
			if !yield(v, err) {
				return
			}
		}
	}
}

// Cancelling within a page stops the items of that page too (issue 28,
// finding 5).
func TestCancelStopsTheIteratorBetweenItems(t *testing.T) {
	c, _ := listServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data":[`)
		for i := range 100 {
			if i > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"wbsElementCode":"E%02d","isActive":true}`, i)
		}
		fmt.Fprint(w, `],"hits":100,"next":null}`)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	items := 0
	var last error
	for _, err := range c.WBSElements.All(ctx, nil) {
		if err != nil {
			last = err
			continue
		}
		if items++; items == 30 {
			cancel()
		}
	}
	if items != 30 || !errors.Is(last, context.Canceled) {
		t.Fatalf("%d items and %v after cancel() at item 30, want 30 and context.Canceled", items, last)
	}
}
