package sdk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
		if st, ok := p.following(page, &walk{size: 10}); ok {
			if st.number < 1 || st.url == nil {
				t.Fatalf("next page %d %v", st.number, st.url)
			}
			if st.url.Host != "platform.example" && c.sameOrigin(st.url) {
				t.Fatalf("a foreign next was taken for the client's origin: %v", st.url)
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
	c, err := NewClient("https://platform.example", WithAccessToken("fuzz-token"), WithHTTPClient(&http.Client{Transport: rt}),
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

// FuzzNextSequence serves a list of n items at the page size asked, with
// each page's next and hits chosen by the fuzzer among every reading of
// the spec and every unusable value, pages past the end answered empty,
// 404 or as the last page again. Whatever the sequence, a listing yields
// every item once and in order, or fails with an error: never a short
// list.
func FuzzNextSequence(f *testing.F) {
	f.Add(uint8(25), uint8(10), []byte{0, 0, 0})
	f.Add(uint8(20), uint8(10), []byte{5, 1, 2, 5, 1, 2, 5, 1, 2})
	f.Add(uint8(237), uint8(7), []byte{3, 4, 6, 7, 8, 9})
	f.Add(uint8(0), uint8(1), []byte{2})
	f.Fuzz(func(t *testing.T, n, size uint8, choices []byte) {
		if size == 0 || len(choices) == 0 {
			return
		}
		pick := func(i int) byte { return choices[i%len(choices)] }
		var requests atomic.Int64
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			k := int(requests.Add(1))
			number, err := strconv.Atoi(r.URL.Query().Get("pageNumber"))
			if err != nil || number < 1 {
				number = 1
			}
			ps, err := strconv.Atoi(r.URL.Query().Get("pageSize"))
			if err != nil || ps < 1 {
				ps = 10
			}
			last := max((int(n)+ps-1)/ps, 1)
			c := pick(k)
			if number > last {
				switch c % 3 {
				case 1:
					w.Header().Set("Content-Type", "application/problem+json")
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"status":404,"title":"Not Found"}`)
					return
				case 2:
					number = last
				}
			}
			lo, hi := min((number-1)*ps, int(n)), min(number*ps, int(n))
			items := make([]string, 0, hi-lo)
			for i := lo; i < hi; i++ {
				items = append(items, fmt.Sprintf(`{"wbsElementCode":"E%03d","isActive":true}`, i))
			}
			more := hi < int(n)
			next := []string{
				`null`, `""`, `"  "`, `true`, `{"page":2}`, `"%zz"`, `-3`, `"0"`,
				fmt.Sprintf(`"%d"`, number+1), fmt.Sprintf(`%d`, hi), `"b3BhcXVl"`, `"7032"`,
			}[int(c>>2)%12]
			if more && c&0x80 != 0 {
				next = fmt.Sprintf(`"/v1/wbs-elements?pageNumber=%d&pageSize=%d"`, number+1, ps)
			}
			hits := []string{`null`, strconv.Itoa(int(n)), strconv.Itoa(len(items)), `"x"`, `-1`, `4294967296`, `2147483647`}[int(pick(k+1))%7]
			body := `{"data":[` + strings.Join(items, ",") + `],"hits":` + hits
			if pick(k+2)%5 != 0 {
				body += `,"next":` + next
			}
			fmt.Fprint(w, body+"}")
		})
		c, err := NewClient("http://platform.test", WithAccessToken("fuzz-token"), WithHTTPClient(&http.Client{Transport: handlerRoundTripper{h}}),
			WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		var codes []string
		for el, err := range c.WBSElements.All(context.Background(), &ListOptions{PageSize: int(size)}) {
			if err != nil {
				return
			}
			codes = append(codes, el.Code)
			if len(codes) > int(n) {
				t.Fatalf("%d items yielded from a list of %d", len(codes), n)
			}
		}
		if len(codes) != int(n) {
			t.Fatalf("a short list: %d of %d items and no error, after %d requests", len(codes), n, requests.Load())
		}
		for i, code := range codes {
			if code != fmt.Sprintf("E%03d", i) {
				t.Fatalf("item %d is %s", i, code)
			}
		}
	})
}

// handlerRoundTripper answers requests in memory with a handler.
type handlerRoundTripper struct{ h http.Handler }

func (rt handlerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	rt.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// FuzzDecodePageAgainstUnmarshal checks the page decoder, which finds the
// data member's bytes by itself, against the plain reading of the
// envelope with json.Unmarshal: the same bodies are accepted, with the
// same items, hits, next and fingerprint.
func FuzzDecodePageAgainstUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"data":[{"wbsElementCode":"A","description":null,"isActive":true}],"hits":1,"next":null}`,
		`{"DATA":[],"Hits":"7","next":"/v1/wbs-elements?pageNumber=2","other":{"a":[1]}}`,
		`{"data":[{"wbsElementCode":"A"}],"data":[],"next":3}`, ` {"data" : null } `,
		`{"data":[]} {}`, `["data",[]]`, `{"data":[1],"data":[]}`, `{"data":[],"data":{}}`,
		`{"data":[{"wbsElementCode":"A","description":"x","isActive":true}],"data":[{"wbsElementCode":"B"}]}`, `{"data":[1,2]}`, `{"hits":1,"next":{}}`, `{"data":[`, `{"data":[]`,
		`{"d\u0061ta":[{"wbsElementCode":"A\"}]"}],"x":{"data":[1]},"y":["data",{"data":2}],"z":"\\","Data":[]}`,
		"{\n\t\"next\" :\t\"a\\\\\" , \"data\"\n:\n[ ]\n}\n", `{"data":[{"isActive":"no"}],"data":[{"isActive":false}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decodePage[WBSElement](body, 1, nil)
		var env struct {
			Data json.RawMessage `json:"data"`
			Hits json.RawMessage `json:"hits"`
			Next json.RawMessage `json:"next"`
		}
		var data []WBSElement
		want := decodeObject(body, &env)
		if want == nil && env.Data == nil {
			want = errors.New("no data")
		}
		if want == nil {
			want = json.Unmarshal(env.Data, &data)
		}
		if (err == nil) != (want == nil) {
			t.Fatalf("decodePage: %v; json.Unmarshal: %v", err, want)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(got.Data, data) {
			t.Fatalf("items %+v, want %+v", got.Data, data)
		}
		if got.fingerprint != sha256.Sum256(env.Data) {
			t.Fatalf("fingerprint over other bytes than %q", env.Data)
		}
		if raw := bytes.TrimSpace(env.Next); got.nextSent != (len(raw) > 0) {
			t.Fatalf("next sent %v, raw %q", got.nextSent, env.Next)
		}
		if n, ok := seconds(env.Hits); (got.Hits != nil) != (ok && n >= 0 && n <= 1<<31) {
			t.Fatalf("hits %v from %q", got.Hits, env.Hits)
		}
	})
}

// A page whose item has a member of the wrong type is refused naming the
// item and the member.
func TestPageOfAWrongTypeNamesTheItem(t *testing.T) {
	for body, want := range map[string]string{
		`{"data":[{"wbsElementCode":"A"},{"wbsElementCode":"B","isActive":"yes"}]}`: `member "isActive" of item 1 has the wrong type`,
		`{"data":[{"wbsElementCode":"A"},7]}`:                                       `item 1 has the wrong type`,
		`{"data":"none"}`:                                                           `the answer's data is not a list of items`,
	} {
		if _, err := decodePage[WBSElement]([]byte(body), 1, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}
