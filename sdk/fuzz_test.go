package sdk

import (
	"net/http"
	"net/url"
	"strings"
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
