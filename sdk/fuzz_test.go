package sdk

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// The SDK's decoding of what a server sends must never panic, whatever
// the bytes.

func FuzzDecodePage(f *testing.F) {
	for _, s := range []string{
		`{"data":[{"wbsElementCode":"A","description":null,"isActive":true}],"hits":1,"next":null}`,
		`{"data":[],"hits":"7","next":"/v1/wbs-elements?pageNumber=2"}`,
		`{"data":[{"wbsElementCode":"A","isActive":true}],"next":3}`,
		`{"data":null}`, `[]`, `{"data":[1,2]}`, `{"hits":1e99,"next":{}}`,
	} {
		f.Add([]byte(s))
	}
	base, _ := url.Parse("https://platform.example/v1/wbs-elements?pageNumber=1")
	c, _ := NewClient("https://platform.example", WithAccessToken("t"))
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := decodePage[WBSElement](body, 1, base)
		if err != nil {
			return
		}
		p := &pager[WBSElement]{c: c, op: opList, base: base, size: 10}
		if u, n, ok := p.following(page, len(page.Data)); ok {
			if n < 1 || u == nil {
				t.Fatalf("next page %d %v", n, u)
			}
			if u.Host != "platform.example" && c.sameOrigin(u) {
				t.Fatalf("a foreign next was taken for the client's origin: %v", u)
			}
		}
	})
}

func FuzzAPIError(f *testing.F) {
	for _, s := range []string{
		`{"type":"t","title":"Bad","status":400,"detail":"d","instance":"/x","correlationId":"c","errors":[{"field":"a"}]}`,
		`{"message":"API rate limit exceeded"}`, `<html><body>502</body></html>`, ``, `{"status":"400"}`, `{`,
	} {
		f.Add([]byte(s), 400)
	}
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		redact := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED]") }
		e := newAPIError("GET", "/v1/wbs-elements", status, http.Header{}, body, redact)
		msg := e.Error()
		if strings.Contains(msg, "SECRET") {
			t.Fatalf("a secret in %q", msg)
		}
		if len(e.Body) > 1000 {
			t.Fatalf("body of %d bytes kept", len(e.Body))
		}
	})
}

func FuzzTokenReply(f *testing.F) {
	for _, s := range []string{
		`{"accessToken":"a.eyJleHAiOjE3MDAwMDAwMDB9.c","expiresIn":3600}`,
		`{"accessToken":"t","expiresIn":"60"}`, `{"accessToken":"t","expiresIn":-1}`, `{"accessToken":""}`, `null`,
	} {
		f.Add([]byte(s))
	}
	now := time.Unix(1_700_000_000, 0)
	f.Fuzz(func(t *testing.T, body []byte) {
		tok, err := parseTokenReply(body, now)
		if err != nil {
			return
		}
		if tok.AccessToken == "" || !tok.ExpiresAt.After(time.Unix(0, 0)) || tok.ExpiresAt.After(now.Add(maxLifetime)) {
			t.Fatalf("token %v accepted", tok)
		}
	})
}

// pageTransport answers the first request with first and every later one
// with an empty page, in memory, and records where each request went.
type pageTransport struct {
	first string

	mu       sync.Mutex
	requests []*url.URL
}

func (p *pageTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	p.mu.Lock()
	p.requests = append(p.requests, r.URL)
	body := `{"data":[]}`
	if len(p.requests) == 1 {
		body = p.first
	}
	p.mu.Unlock()
	if r.Body != nil {
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r,
	}, nil
}

// FuzzNext feeds the iterator a first page whose next member is any JSON
// text. Whatever it is (a URL, relative or absolute, of any scheme or
// host, a number, an opaque value), the iterator must not panic, must
// send every request, all of which carry the token, to the list itself on
// the client's own origin, and must stop after the empty second page.
func FuzzNext(f *testing.F) {
	for _, s := range []string{
		`"/v1/wbs-elements?pageNumber=2"`, `"https://platform.example/v1/wbs-elements?pageNumber=2&pageSize=10"`,
		`"https://evil.example/v1/wbs-elements?pageNumber=2"`, `"//evil.example/v1/wbs-elements?pageNumber=2"`,
		`"javascript:alert(1)"`, `"http://platform.example/v1/wbs-elements?pageNumber=2"`, `2`, `"2"`, `null`, `""`,
	} {
		f.Add(s)
	}
	rt := &pageTransport{}
	c, err := NewClient("https://platform.example", WithAccessToken("fuzz-token"), WithTransport(rt),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, next string) {
		rt.mu.Lock()
		rt.first, rt.requests = `{"data":[{"wbsElementCode":"A","isActive":true}],"next":`+next+`}`, nil
		rt.mu.Unlock()
		for _, err := range c.WBSElements.All(context.Background(), nil) {
			// The first page may be unreadable, or its next lead back to
			// it; anything else, such as a refusal to send the token
			// elsewhere, means the iterator chose a wrong URL.
			if err != nil && !errors.Is(err, ErrBadResponse) && !errors.Is(err, ErrPageLoop) {
				t.Fatalf("next %s: %v", next, err)
			}
		}
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if len(rt.requests) > 2 {
			t.Fatalf("next %s: %d requests for a list of one item", next, len(rt.requests))
		}
		for _, u := range rt.requests {
			if u.Scheme != "https" || !strings.EqualFold(u.Host, "platform.example") || u.Path != "/v1/wbs-elements" {
				t.Fatalf("next %s: a request to %s", next, u)
			}
		}
	})
}
