package sdk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"
)

// defaultPageSize is the platform's page size when none is asked (spec 8).
const defaultPageSize = 10

// ListOptions selects a page of a list. Zero values leave the choice to the
// platform (page 1, 10 items).
type ListOptions struct {
	PageNumber int
	PageSize   int
}

// Page is one page of a list (spec 2.3).
type Page[T any] struct {
	// Data holds the items of this page.
	Data []T
	// Hits is the platform's count indicator, nil when it sent null. The
	// reference server sends the total count; other servers may send the
	// count of this page.
	Hits *int
	// Next is the platform's continuation indicator, nil when it sent null
	// or nothing. The reference server sends the URL of the next page.
	Next *string
	// PageNumber is the number of the page that was asked for.
	PageNumber int

	// nextSent tells a next that is null from one that is missing.
	nextSent bool
	// url is the address the page was read from.
	url *url.URL
	// fingerprint identifies the content of the page, to detect a list
	// that repeats itself.
	fingerprint [32]byte
}

// envelope is the wire form of a list (spec 2.3).
type envelope struct {
	Data json.RawMessage `json:"data"`
	Hits json.RawMessage `json:"hits"`
	Next json.RawMessage `json:"next"`
}

// decodePage reads a list envelope. Members other than data may be
// missing or of another plausible type (hits as a string, next as a
// number); they are then read as well as they can be, since they steer the
// iteration but carry no data.
func decodePage[T any](body []byte, number int, u *url.URL) (*Page[T], error) {
	var env envelope
	if err := decodeObject(body, &env); err != nil {
		return nil, err
	}
	if env.Data == nil {
		// Some other JSON object, not a list that happens to be empty.
		return nil, errors.New("the answer has no data member")
	}
	p := &Page[T]{PageNumber: number, url: u}
	if err := json.Unmarshal(env.Data, &p.Data); err != nil {
		return nil, fmt.Errorf("the answer's data is not a list of items: %s", jsonErrorText(err))
	}
	// The data alone identifies a page that repeats: the envelope's other
	// members may legitimately differ between two reads of the same page.
	p.fingerprint = sha256.Sum256(env.Data)
	if n, ok := seconds(env.Hits); ok && n >= 0 && n <= 1<<31 {
		h := int(n)
		p.Hits = &h
	}
	if raw := bytes.TrimSpace(env.Next); len(raw) > 0 {
		p.nextSent = true
		switch raw[0] {
		case '"':
			var s string
			if json.Unmarshal(raw, &s) == nil {
				p.Next = &s
			}
		case 'n': // null
		default:
			s := string(raw)
			p.Next = &s
		}
	}
	return p, nil
}

// pager fetches the pages of one list.
type pager[T any] struct {
	c    *Client
	op   string
	base *url.URL // the list's URL without query
	size int      // the page size asked for, 0 for the platform's default
	code string
}

// pageURL is the URL of page number n.
func (p *pager[T]) pageURL(n int) *url.URL {
	u := *p.base
	q := url.Values{}
	if n > 0 {
		q.Set("pageNumber", strconv.Itoa(n))
	}
	if p.size > 0 {
		q.Set("pageSize", strconv.Itoa(p.size))
	}
	u.RawQuery = q.Encode()
	return &u
}

func (p *pager[T]) fetch(ctx context.Context, u *url.URL, number int) (*Page[T], error) {
	req := &request{op: p.op, method: "GET", url: u, safe: true, code: p.code}
	resp, err := p.c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	page, err := decodePage[T](resp.body, number, u)
	if err != nil {
		return nil, fmt.Errorf("%s: page %d: %w", p.op, number, badResponse(req, resp.status, resp.header, err))
	}
	return page, nil
}

// following returns the URL and number of the page after prev, or ok ==
// false when prev is the last page.
//
// The list ends at an empty page, at a next that is null or empty, and,
// when the platform sends no next at all, at a short page or once hits
// items were seen. A next that is a URL, absolute or relative, is
// followed when it points to the list itself on the client's own
// platform; pointing elsewhere (a proxy that reports its internal address,
// a hostile server, another resource or scheme), only its pageNumber is
// used, so that the token never leaves the platform and the items read
// are those of the list. A next that is a number is the next page number;
// any other next (an opaque token) is ignored in favour of the page
// number.
func (p *pager[T]) following(prev *Page[T], seen int) (*url.URL, int, bool) {
	if len(prev.Data) == 0 {
		return nil, 0, false
	}
	number := max(prev.PageNumber, 1) + 1
	if !prev.nextSent {
		// Without next, hits may be the total or the count of this page.
		// A total equals the items seen at the end; a page count always
		// equals the page's length, and then says nothing of the end.
		size := p.size
		if size <= 0 {
			size = defaultPageSize
		}
		if len(prev.Data) < size {
			// A short page ends the list unless hits promises more, as
			// when the platform caps the page size below the one asked.
			if prev.Hits == nil || *prev.Hits <= seen {
				return nil, 0, false
			}
		} else if prev.Hits != nil && seen >= *prev.Hits && *prev.Hits != len(prev.Data) {
			return nil, 0, false
		}
		return p.pageURL(number), number, true
	}
	if prev.Next == nil {
		return nil, 0, false
	}
	next := strings.TrimSpace(*prev.Next)
	if next == "" {
		return nil, 0, false
	}
	if n, err := strconv.Atoi(next); err == nil {
		if n < 1 {
			return nil, 0, false
		}
		return p.pageURL(n), n, true
	}
	ref, err := url.Parse(next)
	if err != nil || (!ref.IsAbs() && !strings.ContainsAny(next, "/?")) {
		// An opaque continuation token: fall back on page numbers.
		return p.pageURL(number), number, true
	}
	u := prev.url.ResolveReference(ref)
	u.Fragment, u.RawFragment = "", "" // never sent; it would only hide a loop
	if n, err := strconv.Atoi(u.Query().Get("pageNumber")); err == nil && n > 0 {
		number = n
	}
	if !p.c.sameOrigin(u) || u.Path != p.base.Path {
		return p.pageURL(number), number, true
	}
	return u, number, true
}

// all iterates over the items of every page from opts.PageNumber on,
// holding one page at a time.
func (p *pager[T]) all(ctx context.Context, start int) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		u, number := p.pageURL(start), max(start, 1)
		seenURLs := map[string]bool{}
		seenPages := map[[32]byte]int{}
		seen := 0
		for {
			if seenURLs[u.String()] {
				yield(zero, fmt.Errorf("%s: %w: page %d (%s) was already read", p.op, ErrPageLoop, number, u.Redacted()))
				return
			}
			seenURLs[u.String()] = true
			page, err := p.fetch(ctx, u, number)
			if err != nil {
				if seen > 0 && errors.Is(err, ErrNotFound) {
					// A page past the end.
					return
				}
				yield(zero, err)
				return
			}
			if len(page.Data) > 0 {
				if first, ok := seenPages[page.fingerprint]; ok {
					yield(zero, fmt.Errorf("%s: %w: page %d repeats page %d", p.op, ErrPageLoop, number, first))
					return
				}
				seenPages[page.fingerprint] = number
			}
			for _, item := range page.Data {
				if !yield(item, nil) {
					return
				}
			}
			seen += len(page.Data)
			next, n, ok := p.following(page, seen)
			if !ok {
				return
			}
			u, number = next, n
		}
	}
}
