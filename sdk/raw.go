package sdk

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
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
	// absolute URL on the base URL's origin. Any other origin is refused
	// before a request is made: the token never leaves the platform.
	Path string
	// Header adds headers; Authorization cannot be set.
	Header http.Header
	// Body is sent as it is; ContentType names it (default
	// application/json).
	Body        []byte
	ContentType string
	// Safe marks a request the platform may receive twice without harm;
	// GET and HEAD always are. A request that is not safe is resent only
	// where it provably never reached the platform, like a create.
	Safe bool
}

// RawResponse is a 2xx answer to a RawRequest. A non-2xx answer is an
// *APIError. The client's secret and tokens are redacted from both.
type RawResponse struct {
	StatusCode int
	Status     string
	Header     http.Header
	Body       []byte
}

// opRaw names raw requests in errors.
const opRaw = "request"

// rawURL resolves path against the base URL, keeping the base URL's path
// as a prefix.
func (c *Client) rawURL(path string) (*url.URL, error) {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") || strings.HasPrefix(path, "//") {
		u, err := url.Parse(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opRaw, err)
		}
		if !c.sameOrigin(u) {
			return nil, fmt.Errorf("%s: %s is not on the platform's origin %s://%s: refusing to send credentials there", opRaw, u.Redacted(), c.baseURL.Scheme, c.baseURL.Host)
		}
		return u, nil
	}
	p, query, _ := strings.Cut(path, "?")
	u := *c.baseURL
	ref, err := url.Parse("/" + strings.TrimLeft(p, "/"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opRaw, err)
	}
	u.Path = strings.TrimRight(c.baseURL.Path, "/") + ref.Path
	u.RawPath = ""
	if ref.RawPath != "" {
		u.RawPath = strings.TrimRight(c.baseURL.EscapedPath(), "/") + ref.RawPath
	}
	u.RawQuery = query
	return &u, nil
}

func (c *Client) rawRequest(r *RawRequest) (*request, error) {
	if r.Header.Get("Authorization") != "" {
		return nil, errors.New("request: the Authorization header is the client's own")
	}
	u, err := c.rawURL(r.Path)
	if err != nil {
		return nil, err
	}
	method := strings.ToUpper(cmp.Or(r.Method, http.MethodGet))
	return &request{
		op: opRaw, method: method, url: u, body: ownBody(r.Body), header: r.Header, contentType: r.ContentType,
		safe: r.Safe || method == http.MethodGet || method == http.MethodHead,
	}, nil
}

// Do sends r and returns the platform's 2xx answer.
func (c *Client) Do(ctx context.Context, r *RawRequest) (*RawResponse, error) {
	req, err := c.rawRequest(r)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.release()
	h := resp.header.Clone()
	for k, vs := range h {
		for i, v := range vs {
			vs[i] = c.redact(v)
		}
		h[k] = vs
	}
	return &RawResponse{StatusCode: resp.status, Status: http.StatusText(resp.status), Header: h, Body: []byte(c.redact(string(resp.body)))}, nil
}

// DoPages reads every item of a list answered in the platform's list
// envelope (data, hits, next), by the rules All follows, one page at a
// time; r must be a GET. The query of r.Path is kept on every page.
func (c *Client) DoPages(ctx context.Context, r *RawRequest, opts *ListOptions) iter.Seq2[json.RawMessage, error] {
	req, err := c.rawRequest(r)
	if err == nil && req.method != http.MethodGet {
		err = fmt.Errorf("%s: only a GET is paginated, not %s", opRaw, req.method)
	}
	if err != nil {
		return func(yield func(json.RawMessage, error) bool) { yield(nil, err) }
	}
	o := listOptions(opts)
	base := *req.url
	query := base.Query()
	base.RawQuery = ""
	p := &pager[json.RawMessage]{c: c, op: opRaw, base: &base, query: query, size: o.PageSize, maxPages: o.MaxPages, header: req.header}
	return p.all(ctx, o.PageNumber)
}
