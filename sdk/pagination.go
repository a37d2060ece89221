package sdk

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// defaultPageSize is the platform's page size when none is asked (spec 8).
const defaultPageSize = 10

// DefaultAllPageSize is the page size the All iterators ask for when
// ListOptions.PageSize is zero: the largest the SDK knows the platform to
// accept (wbsctl apply reads with it). With the platform's own default of
// 10, 250 elements would take 25 requests; at 100 they take 3, which at
// 240 requests a minute is the caller's time. A platform that serves
// fewer items than asked is followed at its size where its hits or next
// promise more (see the package documentation).
const DefaultAllPageSize = 100

// ListOptions selects a page of a list. For List and
// ListBusinessOrganizations, zero values leave the choice to the platform
// (page 1, 10 items); the All iterators ask for DefaultAllPageSize items a
// page. A negative value is a *ValidationError, and nothing is sent.
type ListOptions struct {
	PageNumber int
	PageSize   int
	// MaxPages bounds the pages All and AllBusinessOrganizations read:
	// past it, the sequence ends with an error matching ErrListTooLong.
	// Zero is no bound.
	MaxPages int
	// Cursor, where set, is the page to read first: one that
	// Page.NextCursor or Page.NextOptions gave, of this list, maybe in
	// another process. The list is then read at the page size the cursor
	// was made with; PageNumber and PageSize may be left zero, and
	// anything else must be the cursor's own (see Cursor). DoPages
	// reads it too, for a path of the list the cursor was made on.
	Cursor Cursor
}

// Cursor names a page of a list, so that a walk of the list can stop and
// resume there later, in this process or another (after a failure, say):
// Page.NextCursor gives the cursor of the page after a page, and List,
// All, AllPages, ListBusinessOrganizations and the All… iterators of the
// links read from ListOptions.Cursor on. It is a string to store as it is,
// in a file, a database or JSON; its contents are opaque, and a cursor of
// this version of the SDK is read by later ones.
//
// A cursor carries all the SDK needs to read its page whatever the
// platform's next means: the page's URL (the platform's next URL where
// the walk follows one, with any cursor of the platform's in its query;
// else the list's URL with pageNumber and pageSize, which is how a next
// that is a page number, an offset, an opaque token, null or absent is
// followed), the page's number, the page size asked, the smaller size
// the platform was shown to cap pages at, and a fingerprint of the page
// before it, so that a platform that answers a page past the end with the
// last page again does not yield that page twice.
//
// A cursor is tied to the client's base URL, to the list it was made on,
// and to the page size it was made with. Read with another base URL
// (another scheme, host or port, or another path), on another list (an
// element's links, another element), with a PageNumber other than its
// page's, or with a PageSize other than the one it was made with (the
// size asked, or the size its page is read at), it is refused with a
// *ValidationError, and nothing is sent: the bearer token never follows a
// cursor to another origin, as it never follows a next. A token of the
// platform's carried in the cursor may expire as the platform decides.
type Cursor string

// cursorVersion starts every Cursor of this version of the SDK.
const cursorVersion = "1."

// cursorState is what a Cursor carries.
type cursorState struct {
	// URL is the absolute URL of the page.
	URL    string `json:"u"`
	Number int    `json:"n"`
	// Size is the page size asked, 0 for the platform's default; Cap the
	// smaller size the platform was shown to cap pages at, 0 for none.
	Size int `json:"s,omitempty"`
	Cap  int `json:"c,omitempty"`
	// Unproven marks a page read only because the end of the list was not
	// proven; Prev is the fingerprint of the page before it.
	Unproven bool   `json:"e,omitempty"`
	Prev     []byte `json:"f,omitempty"`
}

func (s *cursorState) cursor() Cursor {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a query's & as it is
	_ = enc.Encode(s)        // of ints, a string, a bool and bytes: no error
	return Cursor(cursorVersion + base64.RawURLEncoding.EncodeToString(bytes.TrimSpace(b.Bytes())))
}

// state reads c, checking that it names a page by an absolute URL.
func (c Cursor) state() (*cursorState, error) {
	notOurs := errors.New("is not a cursor of this SDK")
	b64, ok := strings.CutPrefix(string(c), cursorVersion)
	if !ok {
		return nil, notOurs
	}
	b, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return nil, notOurs
	}
	var s cursorState
	if json.Unmarshal(b, &s) != nil {
		return nil, notOurs
	}
	u, err := url.Parse(s.URL)
	if err != nil || !u.IsAbs() || u.Host == "" || s.Number < 1 || s.Size < 0 || s.Cap < 0 ||
		(len(s.Prev) != 0 && len(s.Prev) != sha256.Size) {
		return nil, notOurs
	}
	return &s, nil
}

// pageSize is the pageSize of the page's URL, 0 where it has none.
func (s *cursorState) pageSize() int {
	u, err := url.Parse(s.URL)
	if err != nil {
		return 0
	}
	if n, err := strconv.Atoi(u.Query().Get("pageSize")); err == nil && n > 0 {
		return n
	}
	return 0
}

// madeWith reports whether size is a page size the cursor was made with:
// the one asked, or the one its page is read at.
func (s *cursorState) madeWith(size int) bool {
	return size == s.Size || (s.Cap > 0 && size == s.Cap) || size == s.pageSize()
}

// prev is the fingerprint of the page before the cursor's, if it has one.
func (s *cursorState) prev() ([32]byte, bool) {
	var fp [32]byte
	if s == nil || len(s.Prev) != len(fp) {
		return fp, false
	}
	copy(fp[:], s.Prev)
	return fp, true
}

// validate refuses negative values, which a platform reads as its
// defaults (so that the caller gets another page than asked) or refuses.
func (o ListOptions) validate(op, code string) error {
	var vs violations
	if o.PageNumber < 0 {
		vs.add("pageNumber", "at least 1, or 0 for the first page", "is %d", o.PageNumber)
	}
	if o.PageSize < 0 {
		vs.add("pageSize", "at least 1, or 0 for the default", "is %d", o.PageSize)
	}
	if o.MaxPages < 0 {
		vs.add("maxPages", "at least 1, or 0 for no bound", "is %d", o.MaxPages)
	}
	if o.Cursor != "" {
		st, err := o.Cursor.state()
		switch {
		case err != nil:
			vs.add("cursor", "a Cursor of Page.NextCursor or Page.NextOptions", "%s", err)
		default:
			if o.PageNumber > 0 && o.PageNumber != st.Number {
				vs.add("pageNumber", fmt.Sprintf("0 or the cursor's page, %d", st.Number), "is %d", o.PageNumber)
			}
			if o.PageSize > 0 && !st.madeWith(o.PageSize) {
				limit := "0: the cursor reads at the platform's page size"
				if size := cmp.Or(st.Size, st.pageSize()); size > 0 {
					limit = fmt.Sprintf("0 or the cursor's page size, %d", size)
				}
				vs.add("pageSize", limit, "is %d", o.PageSize)
			}
		}
	}
	return vs.err(op, code)
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
	// Rate is what the answer's headers said of the rate limit.
	Rate Rate

	// nextSent tells a next that is null from one that is missing.
	nextSent bool
	// url is the address the page was read from.
	url *url.URL
	// fingerprint identifies the content of the page, to detect a list
	// that repeats itself.
	fingerprint [32]byte
	// next finds the page after this one; see NextOptions.
	next func() (*ListOptions, bool)
}

// NextOptions returns the options that read the page after p with List or
// ListBusinessOrganizations, by the rules All follows, and false when p
// proves the end of the list. The options' Cursor names that page, and
// PageNumber and PageSize are its number and size; MaxPages is the one p
// was read with. Where All follows a next URL, the cursor carries its
// whole query, such as the platform's cursor, and List sends it as it is.
// A page that List read alone cannot show that hits is a total (All
// learns that over several pages), so a full page is always followed, as
// All does; a page past the end then answers empty.
func (p *Page[T]) NextOptions() (*ListOptions, bool) {
	if p.next == nil {
		return nil, false
	}
	return p.next()
}

// NextCursor returns the cursor of the page after p, to read it later
// with ListOptions.Cursor, and false when p proves the end of the list.
// On a page of AllPages it is the page the walk reads next, with what the
// walk learnt of the platform; on a page of List, the one NextOptions
// reads.
func (p *Page[T]) NextCursor() (Cursor, bool) {
	o, ok := p.NextOptions()
	if !ok {
		return "", false
	}
	return o.Cursor, true
}

// decodePage reads a list envelope (spec 2.3). Members other than data
// may be missing or of another plausible type (hits as a string, next as
// a number); they are then read as well as they can be, since they steer
// the iteration but carry no data. Member names match as encoding/json
// matches them (case folded, the last of a repeated member wins), and
// anything after the object is an error, as json.Unmarshal has it.
func decodePage[T any](body []byte, number int, u *url.URL) (*Page[T], error) {
	if err := jsonPrelude(body, true); err != nil {
		return nil, err
	}
	if bytes.TrimSpace(body)[0] != '{' {
		return nil, errors.New("the body is not a JSON object")
	}
	var envelope struct {
		Data       []T
		Hits, Next json.RawMessage
	}
	err := jsonv1.Unmarshal(body, &envelope)
	var typeErr *jsonv1.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) {
		return nil, errors.New(jsonErrorText(err))
	}
	data, repeated := dataMember(body)
	if data == nil {
		// Some other JSON object, not a list that happens to be empty.
		return nil, errors.New("the answer has no data member")
	}
	if err != nil || repeated {
		// Only data has a type that can be wrong. The last data is the
		// page's, decoded alone: one before it would leave its items
		// and its errors in a decoding of the whole.
		envelope.Data = nil
		if err := jsonv1.Unmarshal(data, &envelope.Data); err != nil {
			return nil, fmt.Errorf("the answer's data is not a list of items: %s", jsonErrorText(err))
		}
	}
	p := &Page[T]{Data: envelope.Data, PageNumber: number, url: u}
	hits, next := envelope.Hits, envelope.Next
	// The data alone identifies a page that repeats: the envelope's other
	// members may legitimately differ between two reads of the same page.
	p.fingerprint = sha256.Sum256(data)
	if n, ok := seconds(hits); ok && n >= 0 && n <= 1<<31 {
		h := int(n)
		p.Hits = &h
	}
	if raw := bytes.TrimSpace(next); len(raw) > 0 {
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

// dataMember returns the value of the member data of obj, a valid JSON
// object, as the bytes it stands in, and whether obj has more than one
// (the last counts, as for encoding/json). Names are case folded, as
// encoding/json matches them.
func dataMember(obj []byte) (data []byte, repeated bool) {
	rest := obj[bytes.IndexByte(obj, '{')+1:]
	for {
		rest = bytes.TrimLeft(rest, ", \t\r\n")
		if rest[0] == '}' {
			return data, repeated
		}
		n := jsonValueLen(rest)
		name := rest[:n]
		rest = bytes.TrimLeft(rest[n:], ": \t\r\n")
		n = jsonValueLen(rest)
		if isDataName(name) {
			repeated = repeated || data != nil
			data = rest[:n]
		}
		rest = rest[n:]
	}
}

// isDataName reports whether the member name name, a JSON string, is
// data to encoding/json.
func isDataName(name []byte) bool {
	if bytes.IndexByte(name, '\\') < 0 {
		return bytes.EqualFold(name[1:len(name)-1], []byte("data"))
	}
	var s string
	return json.Unmarshal(name, &s) == nil && strings.EqualFold(s, "data")
}

// jsonValueLen is the length of the JSON value v starts with, in valid
// JSON.
func jsonValueLen(v []byte) int {
	switch v[0] {
	case '"':
		return jsonStringLen(v)
	case '{', '[':
		depth := 0
		for i := 0; i < len(v); i++ {
			switch v[i] {
			case '"':
				i += jsonStringLen(v[i:]) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	// A number, true, false or null, within an object.
	return bytes.IndexAny(v, ",}] \t\r\n")
}

// jsonStringLen is the length of the JSON string v starts with, quotes
// included.
func jsonStringLen(v []byte) int {
	for i := 1; ; i++ {
		switch v[i] {
		case '\\':
			i++ // the escaped byte
		case '"':
			return i + 1
		}
	}
}

// pager fetches the pages of one list.
type pager[T any] struct {
	c    *Client
	op   string
	base *url.URL // the list's URL without query
	size int      // the page size asked for, 0 for the platform's default
	code string
	// maxPages bounds the pages read; 0 is no bound.
	maxPages int
	// query is kept on every page (RawRequest), header sent with it.
	query  url.Values
	header http.Header
	// cursor, where set, names the first page read: the pages after it
	// follow the platform's own next. capped is the page size the
	// platform was shown to cap pages at before, 0 for none.
	cursor *cursorState
	capped int
	// emptyOn404 reads a 404 on the first page as an empty list: always
	// for the element list, for an element's links only where the caller
	// knows the element exists.
	emptyOn404 bool
	// onPage, where set, is given each page's status and headers.
	onPage func(status int, header http.Header)
}

// pageURL is the URL of page number n at the given page size (0: the
// platform's default).
func (p *pager[T]) pageURL(n, size int) *url.URL {
	u := *p.base
	q := url.Values{}
	for k, vs := range p.query {
		if k != "pageNumber" && k != "pageSize" {
			q[k] = vs
		}
	}
	if n > 0 {
		q.Set("pageNumber", strconv.Itoa(n))
	}
	if size > 0 {
		q.Set("pageSize", strconv.Itoa(size))
	}
	u.RawQuery = q.Encode()
	return &u
}

// resume makes p read from the page c names, at the page size c was made
// with whatever the operation's default. ListOptions.validate has
// refused a c that is no cursor.
func (p *pager[T]) resume(c Cursor) {
	if c == "" {
		return
	}
	if st, err := c.state(); err == nil {
		p.cursor, p.size, p.capped = st, st.Size, st.Cap
	}
}

// firstStep is the first page to read: number n, or the page p's cursor
// names. A cursor is only followed to the list itself on the client's own
// origin, as a next is (see following); any other is refused.
func (p *pager[T]) firstStep(n int) (step, error) {
	if p.cursor == nil {
		return step{url: p.pageURL(n, p.size), number: max(n, 1)}, nil
	}
	u, err := url.Parse(p.cursor.URL)
	if err != nil || u.User != nil || !p.c.sameOrigin(u) || u.Path != p.base.Path {
		var vs violations
		vs.add("cursor", "a cursor of this list at the client's base URL", "names a page of another origin or list")
		return step{}, vs.err(p.op, p.code)
	}
	u.Fragment, u.RawFragment = "", ""
	return step{url: u, number: p.cursor.Number, unproven: p.cursor.Unproven}, nil
}

// newWalk starts a walk whose first page is number n.
func (p *pager[T]) newWalk(n int) *walk {
	w := &walk{size: cmp.Or(p.capped, max(p.size, 0), defaultPageSize), capped: p.capped > 0}
	w.seen = (max(n, 1) - 1) * w.size
	return w
}

// after is the options, cursor included, of st, the page after page,
// where the walk has found the platform to cap pages at capped items (0:
// no cap).
func (p *pager[T]) after(page *Page[T], st step, capped int) *ListOptions {
	cs := &cursorState{URL: st.url.String(), Number: st.number, Size: max(p.size, 0), Cap: capped,
		Unproven: st.unproven, Prev: bytes.Clone(page.fingerprint[:])}
	return &ListOptions{PageNumber: st.number, PageSize: cs.pageSize(), MaxPages: p.maxPages, Cursor: cs.cursor()}
}

// one reads one page, as List does: number n, or the page p's cursor
// names. A cursor's page that answers 404, or repeats the page before it
// without itself promising more, is past the end of the list, and answers
// empty.
func (p *pager[T]) one(ctx context.Context, n int) (*Page[T], error) {
	at, err := p.firstStep(n)
	if err != nil {
		return nil, err
	}
	page, err := p.fetch(ctx, at.url, at.number)
	if err != nil {
		if (p.emptyOn404 || p.cursor != nil) && platformNotFound(err) {
			// An empty list, or a page past the end: a cursor is made
			// after a page of the list.
			return &Page[T]{Data: []T{}, PageNumber: at.number}, nil
		}
		return nil, err
	}
	if prev, ok := p.cursor.prev(); ok && len(page.Data) > 0 && page.fingerprint == prev {
		if !at.unproven && !p.endsAgain(page, p.newWalk(at.number)) {
			return nil, fmt.Errorf("%s: %w: page %d repeats page %d", p.op, ErrPageLoop, at.number, at.number-1)
		}
		return &Page[T]{Data: []T{}, PageNumber: at.number, Rate: page.Rate}, nil
	}
	return page, nil
}

func (p *pager[T]) fetch(ctx context.Context, u *url.URL, number int) (*Page[T], error) {
	req := &request{op: p.op, method: "GET", url: u, safe: true, code: p.code, header: p.header}
	resp, err := p.c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	if p.onPage != nil {
		p.onPage(resp.status, resp.header)
	}
	body := resp.body
	if p.op == opRaw {
		// DoPages hands out the items as the platform wrote them: what
		// it echoed of the client's secret or tokens is redacted, as Do
		// redacts a body.
		body = []byte(p.c.redact(string(body)))
	}
	page, err := decodePage[T](body, number, u)
	if err != nil {
		return nil, fmt.Errorf("%s: page %d: %w", p.op, number, badResponse(req, resp.status, resp.header, err))
	}
	page.Rate = resp.rate
	page.next = func() (*ListOptions, bool) {
		w := p.newWalk(number)
		st, ok := p.following(page, w)
		if !ok {
			return nil, false
		}
		capped := 0
		if w.capped {
			capped = w.size
		}
		return p.after(page, st, capped), true
	}
	return page, nil
}

// walk is what one iteration over a list has learnt of the platform's
// reading of the spec's open points (spec 4.1): what hits counts, and the
// page size the platform really answers.
type walk struct {
	// size is the page size the platform answers: the one asked, or the
	// smaller one it has shown it caps pages at.
	size   int
	capped bool
	// seen counts the items before the next page: those read, plus those
	// of the pages before the first one read.
	seen  int
	pages int
	// hits is the first page's hits. hitsTotal holds while every page
	// sent that same value and it is at least the items seen, as a total
	// does; hitsPage while every page's hits equals its length, as a count
	// of the page does. Both hold after one full page whose hits equals
	// its length: the reading is then unknown.
	hits      int
	hitsTotal bool
	hitsPage  bool
}

// observe takes in the page just read.
func (w *walk) observe(hits *int, n int) {
	w.seen += n
	w.pages++
	if w.pages == 1 {
		w.hitsTotal, w.hitsPage = hits != nil, hits != nil
		if hits != nil {
			w.hits = *hits
		}
	}
	w.hitsTotal = w.hitsTotal && hits != nil && *hits == w.hits && w.hits >= w.seen
	w.hitsPage = w.hitsPage && hits != nil && *hits == n
}

// moreByHits reports whether hits, read as a total, promises more items.
func (w *walk) moreByHits() bool { return w.hitsTotal && w.seen < w.hits }

// endByHits reports whether hits, proven a total, has been reached.
func (w *walk) endByHits() bool { return w.hitsTotal && !w.hitsPage && w.seen >= w.hits }

// step is where the walk goes after a page.
type step struct {
	url    *url.URL
	number int
	// unproven marks a page read only because the end of the list was
	// not proven: nothing the platform sent promised it.
	unproven bool
	// next marks the platform's next URL, followed as it is.
	next bool
}

// following returns the page after prev, or ok == false when prev is
// proven to be the last page.
//
// The end is proven by an empty page; by a short page (fewer items than
// the page size) when neither next nor hits promises more; or by hits,
// once shown to be a total, reached while next promises nothing. A null,
// missing or empty next proves nothing on its own, since a platform may
// send it on every page: a full page with no other proof of the end is
// followed by the next page number, which costs one request on a platform
// whose null next does mean the last page.
//
// A next that is a URL, absolute or relative, is followed when it points
// to the list itself on the client's own platform; pointing elsewhere (a
// proxy that reports its internal address, a hostile server, another
// resource or scheme), only its pageNumber is used, so that the token
// never leaves the platform and the items read are those of the list. Any
// other next, a number included, is an opaque continuation: it promises
// more, and the walk goes on by page number. (A number that is the next
// page number leads to the same page; one that is not, such as an offset,
// must not be taken for one.)
func (p *pager[T]) following(prev *Page[T], w *walk) (step, bool) {
	if len(prev.Data) == 0 {
		return step{}, false
	}
	w.observe(prev.Hits, len(prev.Data))
	number := max(prev.PageNumber, 1) + 1
	ref, nextMore := p.continuation(prev)
	more := nextMore || w.moreByHits()
	if len(prev.Data) < w.size {
		if !more {
			return step{}, false
		}
		if w.pages == 1 && prev.PageNumber <= 1 && w.moreByHits() {
			// The first page holds fewer items than asked and the total
			// promises more: the platform caps the page size. Asking for
			// its size keeps the page numbers of both sides aligned. A
			// short page after full ones shows no cap, and changing the
			// size there would shift the pages already read.
			w.size, w.capped = len(prev.Data), true
		}
	}
	if !more && w.endByHits() {
		return step{}, false
	}
	if ref != nil {
		u := prev.url.ResolveReference(ref)
		u.Fragment, u.RawFragment = "", "" // never sent; it would only hide a loop
		if n, err := strconv.Atoi(u.Query().Get("pageNumber")); err == nil && n > 0 {
			number = n
		}
		if p.c.sameOrigin(u) && u.Path == p.base.Path {
			return step{url: u, number: number, next: true}, true
		}
	}
	return step{url: p.pageURL(number, p.sizeParam(w)), number: number, unproven: !more}, true
}

// sizeParam is the pageSize to ask for: none when the caller left it to
// the platform and the platform has shown no cap.
func (p *pager[T]) sizeParam(w *walk) int {
	if p.size <= 0 && !w.capped {
		return 0
	}
	return w.size
}

// continuation reads prev's next: whether it promises more, and the URL
// it names, if it is one.
func (p *pager[T]) continuation(prev *Page[T]) (*url.URL, bool) {
	if prev.Next == nil {
		return nil, false
	}
	next := strings.TrimSpace(*prev.Next)
	if next == "" {
		return nil, false
	}
	if _, err := strconv.Atoi(next); err == nil {
		return nil, true
	}
	ref, err := url.Parse(next)
	if err != nil || (!ref.IsAbs() && !strings.ContainsAny(next, "/?")) {
		return nil, true
	}
	return ref, true
}

// all iterates over the items of every page from page start on (or the
// cursor's), holding one page at a time.
func (p *pager[T]) all(ctx context.Context, start int) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for page, err := range p.pages(ctx, start) {
			if err != nil {
				yield(zero, err)
				return
			}
			for _, item := range page.Data {
				// A caller that cancels within a page gets no more
				// of it, as it would get no next page.
				if ctx.Err() != nil {
					yield(zero, fmt.Errorf("%s: %w", p.op, context.Cause(ctx)))
					return
				}
				if !yield(item, nil) {
					return
				}
			}
		}
	}
}

// pages iterates over the pages of the list that hold items, from page
// start on (or the cursor's), holding one at a time. The NextCursor of
// each is the page the walk reads after it.
func (p *pager[T]) pages(ctx context.Context, start int) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		if err := (ListOptions{PageNumber: start, PageSize: p.size, MaxPages: p.maxPages}).validate(p.op, p.code); err != nil {
			yield(nil, err)
			return
		}
		at, err := p.firstStep(start)
		if err != nil {
			yield(nil, err)
			return
		}
		w := p.newWalk(at.number)
		seenURLs := map[string]bool{}
		seenPages := map[[32]byte]int{}
		last := 0 // the number of the page read last
		if prev, ok := p.cursor.prev(); ok {
			// The page before the cursor's, read by the walk that made it.
			last = at.number - 1
			seenPages[prev] = last
		}
		announced := 0 // the total the first page's hits announced
		for {
			if seenURLs[at.url.String()] {
				yield(nil, fmt.Errorf("%s: %w: page %d (%s) was already read", p.op, ErrPageLoop, at.number, at.url.Redacted()))
				return
			}
			seenURLs[at.url.String()] = true
			if p.maxPages > 0 && w.pages >= p.maxPages {
				yield(nil, fmt.Errorf("%s: %w: %d pages read, and the list goes on", p.op, ErrListTooLong, w.pages))
				return
			}
			page, err := p.fetch(ctx, at.url, at.number)
			if err != nil {
				if platformNotFound(err) && (w.pages > 0 || p.cursor != nil || p.emptyOn404) {
					// A page past the end, or an empty list.
					return
				}
				yield(nil, err)
				return
			}
			if len(page.Data) > 0 {
				if first, ok := seenPages[page.fingerprint]; ok {
					if first == last && (at.unproven || p.endsAgain(page, w)) {
						// A platform that answers a page past the end
						// with the last page again.
						return
					}
					yield(nil, fmt.Errorf("%s: %w: page %d repeats page %d", p.op, ErrPageLoop, at.number, first))
					return
				}
				seenPages[page.fingerprint] = at.number
			}
			last = at.number
			var tooLong error
			if announced > 0 || (w.pages == 0 && page.Hits != nil && *page.Hits > len(page.Data)) {
				// A first hits above its page's length is a total: a list
				// that runs far past it is one that never ends.
				if announced == 0 {
					announced = *page.Hits
				}
				if over := w.seen + len(page.Data) - announced; over > max(announced/10, 10*w.size) {
					tooLong = fmt.Errorf("%s: %w: %d items read, and its hits announced %d", p.op, ErrListTooLong, w.seen+len(page.Data), announced)
				}
			}
			next, ok := p.following(page, w)
			capped := 0
			if w.capped {
				capped = w.size
			}
			page.next = func() (*ListOptions, bool) {
				if !ok {
					return nil, false
				}
				return p.after(page, next, capped), true
			}
			if len(page.Data) > 0 && !yield(page, nil) {
				return
			}
			if tooLong != nil {
				yield(nil, tooLong)
				return
			}
			if !ok {
				return
			}
			at = next
		}
	}
}

// endsAgain reports whether page, a repeat of the page read last, shows
// itself the end of the list: neither its next nor its hits promise more
// than the items read. So does a platform that answers a page past the end
// with the last page when the list shrank while it was read; one that
// ignores pageNumber goes on promising the page it repeats.
func (p *pager[T]) endsAgain(page *Page[T], w *walk) bool {
	_, more := p.continuation(page)
	return !more && (page.Hits == nil || *page.Hits <= w.seen)
}

// platformNotFound reports whether err is the platform's own 404, one with
// problem details (spec 7), which a list may answer for an empty list or a
// page past its end. A 404 of another kind, such as a proxy's HTML page for
// a wrong base URL, is not read as an empty list.
func platformNotFound(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound && apiErr.Problem != nil
}
