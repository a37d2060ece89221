package sdk

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// RawRequest is a request to any interface of the platform (spec 1 lists
// orders, contracts, suppliers and more besides WBS elements), made with
// the client's token, retries and safety rules; for tools such as
// wbsctl api.
type RawRequest struct {
	// Method is the HTTP method; default GET.
	Method string
	// Path is relative to the base URL ("/v1/orders?status=open"), or an
	// absolute URL below it. Its dot-segments, plain or percent-encoded,
	// are resolved before sending; a path that then leaves the base URL's
	// path, or a URL on another origin, is refused before a request is
	// made: the token never leaves the platform.
	Path string
	// Header adds headers, replacing the client's Accept, User-Agent and
	// Content-Type. Authorization, Host, Content-Length,
	// Transfer-Encoding and the headers of the connection (Trailer,
	// Connection, Upgrade, TE, Keep-Alive, Proxy-*) are the client's own
	// and cannot be set.
	Header http.Header
	// Body is sent as it is; ContentType names it (default
	// application/json). A GET, HEAD or OPTIONS has none.
	Body        []byte
	ContentType string
	// Safe marks a request the platform may receive twice without harm;
	// GET and HEAD always are. A request that is not safe is resent only
	// where it provably never reached the platform, like a create.
	Safe bool
	// OnPage, where set, is called by DoPages with the answer of each
	// page, its Body nil, before the page's items are yielded: for a tool
	// that shows each page's status and headers.
	OnPage func(*RawResponse)
}

// RawResponse is a 2xx answer to a RawRequest. A non-2xx answer is an
// *APIError. The client's secret and tokens are redacted from both.
type RawResponse struct {
	StatusCode int
	Status     string
	Header     http.Header
	Body       []byte
}

// RefusedError is a RawRequest the client refuses before anything is
// sent, not even a token request: the token would reach another origin,
// another host or a path outside the base URL's, or the request cannot be
// written as HTTP.
type RefusedError struct {
	// Reason says what is wrong with the request.
	Reason string
}

func (e *RefusedError) Error() string { return opRaw + ": " + e.Reason + "; nothing was sent" }

func refuse(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// opRaw names raw requests in errors.
const opRaw = "request"

// ownHeaders are the headers a RawRequest cannot set: the token, where it
// goes, the framing of the body, which net/http writes itself, and the
// headers of the connection, which net/http drops or rewrites (Trailer,
// Connection, Upgrade, TE, Keep-Alive, and every Proxy- header).
var ownHeaders = []string{"Authorization", "Host", "Content-Length", "Transfer-Encoding",
	"Trailer", "Connection", "Upgrade", "TE", "Keep-Alive"}

// ownHeader returns the name of the client's own header that name is, or
// "".
func ownHeader(name string) string {
	for _, own := range ownHeaders {
		if strings.EqualFold(name, own) {
			return own
		}
	}
	if len(name) > len("Proxy-") && strings.EqualFold(name[:len("Proxy-")], "Proxy-") {
		return http.CanonicalHeaderKey(name)
	}
	return ""
}

// rawURL resolves path against the base URL. The base URL's path may be
// all that separates one tenant from another on a shared front end, so the
// result stays below it: dot-segments are resolved here, so that nothing
// on the way can read the path as another one, and a path that climbs
// out is refused.
func (c *Client) rawURL(path string) (*url.URL, error) {
	if strings.ContainsFunc(path, isControl) {
		return nil, refuse("the path %q holds a control character", path)
	}
	path, _, _ = strings.Cut(path, "#") // a fragment is never sent
	rest, query, _ := strings.Cut(path, "?")
	base := strings.TrimRight(c.baseURL.EscapedPath(), "/")
	if isAbsoluteURL(rest) {
		u, err := url.Parse(rest)
		if err != nil {
			return nil, refuse("%q is not a URL: %v", rest, err)
		}
		if !c.sameOrigin(u) {
			return nil, refuse("%s is not on the platform's origin %s://%s: refusing to send credentials there", u.Redacted(), c.baseURL.Scheme, c.baseURL.Host)
		}
		// The path as written, not as net/url would escape it again: its
		// segments are read below as those of a relative path are.
		_, hostAndPath, _ := strings.Cut(rest, "://")
		written := ""
		if i := strings.IndexByte(hostAndPath, '/'); i >= 0 {
			written = hostAndPath[i:]
		}
		after, ok := strings.CutPrefix(written, base)
		if !ok || after != "" && after[0] != '/' {
			return nil, refuse("%s is not below the base URL's path %s/", u.Redacted(), base)
		}
		rest = after
	}
	segments, err := resolveDotSegments(rest)
	if err != nil {
		return nil, refuse("the path %q %v (the base URL's path is %s/)", path, err, base)
	}
	raw := base + "/" + strings.Join(segments, "/")
	decoded, err := url.PathUnescape(raw)
	if err != nil {
		return nil, refuse("the path %q: %v", path, err)
	}
	u := *c.baseURL
	u.Path, u.RawPath, u.RawQuery = decoded, raw, query
	u.Fragment, u.RawFragment = "", ""
	// The transport reads the URL again from its text.
	if _, err := url.Parse(u.String()); err != nil {
		return nil, refuse("the path %q: %v", path, err)
	}
	return &u, nil
}

// isAbsoluteURL reports whether a RawRequest's path is a URL of its own.
func isAbsoluteURL(s string) bool {
	lower := strings.ToLower(s)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") || strings.HasPrefix(s, "//")
}

// resolveDotSegments returns the segments of a path relative to the base
// URL's with its dot-segments resolved (RFC 3986 5.2.4), reading %2E as a
// dot as servers do, and an error when a ".." climbs above the start. A
// segment that hides a dot-segment behind an encoded slash or a backslash
// (x%2F.., ..%5C) is refused: a server that decodes it before resolving
// would climb where this reading does not. Kept segments are sent as
// written where that is valid percent-encoding.
func resolveDotSegments(p string) ([]string, error) {
	var out []string
	dotLast := false
	for _, seg := range strings.Split(strings.TrimLeft(p, "/"), "/") {
		decoded, err := url.PathUnescape(seg)
		if err != nil {
			return nil, fmt.Errorf("has a bad percent-encoding in %q", seg)
		}
		dotLast = decoded == "." || decoded == ".."
		switch {
		case decoded == ".":
		case decoded == "..":
			if len(out) == 0 {
				return nil, fmt.Errorf("leaves the base URL's path once its %q is resolved", seg)
			}
			out = out[:len(out)-1]
		case hidesDotSegment(decoded):
			return nil, fmt.Errorf("hides a dot-segment in %q", seg)
		case validEncoding(seg):
			out = append(out, seg)
		default:
			out = append(out, url.PathEscape(decoded))
		}
	}
	if dotLast {
		out = append(out, "") // a/b/.. is a/, as RFC 3986 resolves it
	}
	return out, nil
}

func hidesDotSegment(decoded string) bool {
	if !strings.ContainsAny(decoded, `/\`) {
		return false
	}
	for _, piece := range strings.FieldsFunc(decoded, func(r rune) bool { return r == '/' || r == '\\' }) {
		if piece == "." || piece == ".." {
			return true
		}
	}
	return false
}

// validEncoding reports whether seg may go out as it is: unreserved and
// reserved characters of a segment and percent-escapes only (RFC 3986
// 3.3), so that its text and its decoded form agree.
func validEncoding(seg string) bool { return lettersDigitsAnd(seg, "-._~!$&'()*+,;=:@%") }

// isToken reports whether s is an HTTP token (RFC 9110 5.6.2), as a method
// or a header's name must be.
func isToken(s string) bool { return s != "" && lettersDigitsAnd(s, "!#$%&'*+-.^_`|~") }

// lettersDigitsAnd reports whether every byte of s is an ASCII letter or
// digit, or one of extra.
func lettersDigitsAnd(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte(extra, b) >= 0) {
			return false
		}
	}
	return true
}

// isControl reports an ASCII control character, which would end a
// request line or a header early (CR, LF) or is refused by servers; a tab
// is allowed in a header's value.
func isControl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }

func (c *Client) rawRequest(r *RawRequest) (*request, error) {
	method := strings.ToUpper(cmp.Or(r.Method, http.MethodGet))
	if !isToken(method) {
		return nil, refuse("%q is not an HTTP method", r.Method)
	}
	if r.Body != nil && (method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions) {
		// Its body means nothing there (RFC 9110), and a server or
		// proxy may drop it without a word.
		return nil, refuse("a %s carries no body", method)
	}
	for name, values := range r.Header {
		if !isToken(name) {
			return nil, refuse("%q is not a header name", name)
		}
		if own := ownHeader(name); own != "" {
			return nil, refuse("the %s header is the client's own", own)
		}
		if strings.EqualFold(name, "User-Agent") && len(values) > 1 {
			// net/http sends the first alone.
			return nil, refuse("one User-Agent header goes out, not %d", len(values))
		}
		for _, v := range values {
			if strings.ContainsFunc(v, isControl) {
				return nil, refuse("the value of the header %s holds a control character such as CR or LF", name)
			}
		}
	}
	u, err := c.rawURL(r.Path)
	if err != nil {
		return nil, err
	}
	return &request{
		op: opRaw, method: method, url: u, body: ownBody(r.Body), header: r.Header, contentType: r.ContentType,
		safe: r.Safe || method == http.MethodGet || method == http.MethodHead,
	}, nil
}

// Do sends r and returns the platform's 2xx answer. A request refused
// before sending is a *RefusedError.
func (c *Client) Do(ctx context.Context, r *RawRequest) (*RawResponse, error) {
	req, err := c.rawRequest(r)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	raw := c.rawResponse(resp.status, resp.header)
	raw.Body = []byte(c.redact(string(resp.body)))
	return raw, nil
}

// rawResponse is an answer's status and headers, redacted.
func (c *Client) rawResponse(status int, header http.Header) *RawResponse {
	h := header.Clone()
	for k, vs := range h {
		for i, v := range vs {
			vs[i] = c.redact(v)
		}
		h[k] = vs
	}
	return &RawResponse{StatusCode: status, Status: http.StatusText(status), Header: h}
}

// DoPages reads every item of a list answered in the platform's list
// envelope (data, hits, next), by the rules All follows, one page at a
// time; r must be a GET. The query of r.Path is kept on every page; its
// pageNumber is the first page read and its pageSize the size asked,
// where opts gives none.
func (c *Client) DoPages(ctx context.Context, r *RawRequest, opts *ListOptions) iter.Seq2[json.RawMessage, error] {
	fail := func(err error) iter.Seq2[json.RawMessage, error] {
		return func(yield func(json.RawMessage, error) bool) { yield(nil, err) }
	}
	req, err := c.rawRequest(r)
	if err != nil {
		return fail(err)
	}
	if req.method != http.MethodGet {
		return fail(refuse("only a GET is paginated, not %s", req.method))
	}
	o := listOptions(opts)
	if err := o.validate(opRaw, ""); err != nil {
		return fail(err)
	}
	base := *req.url
	query := base.Query()
	base.RawQuery = ""
	for _, p := range []struct {
		name string
		n    *int
	}{{"pageNumber", &o.PageNumber}, {"pageSize", &o.PageSize}} {
		if *p.n != 0 || !query.Has(p.name) || o.Cursor != "" {
			continue
		}
		n, err := strconv.Atoi(query.Get(p.name))
		if err != nil || n < 1 {
			return fail(refuse("the path's %s=%s is not a number from 1 on", p.name, query.Get(p.name)))
		}
		*p.n = n
	}
	p := &pager[json.RawMessage]{c: c, op: opRaw, base: &base, query: query, size: o.PageSize, maxPages: o.MaxPages, header: req.header}
	if r.OnPage != nil {
		p.onPage = func(status int, header http.Header) { r.OnPage(c.rawResponse(status, header)) }
	}
	p.resume(o.Cursor)
	return p.all(ctx, o.PageNumber)
}
