package sdk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A server that echoes the secret and the token it was sent must not get
// them into an error or a log record.
func TestNoSecretInErrorsOrLogs(t *testing.T) {
	f := newFakePlatform(t)
	var seenToken atomic.Value
	bodies := []func(tok string) (string, string){
		func(tok string) (string, string) {
			return "application/problem+json", fmt.Sprintf(`{"title":"bad %s","detail":"secret %s token %s","status":400}`, tok, fakeSecret, tok)
		},
		func(tok string) (string, string) {
			return "application/json", fmt.Sprintf(`{"message":"rate limited %s %s"}`, fakeSecret, tok)
		},
		func(tok string) (string, string) {
			return "text/html", fmt.Sprintf("<html><body>Proxy error for %s with %s</body></html>", tok, fakeSecret)
		},
	}
	for i, body := range bodies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			f.handle = func(w http.ResponseWriter, r *http.Request, n int) bool {
				tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				seenToken.Store(tok)
				ct, b := body(tok)
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(400)
				fmt.Fprint(w, b)
				return true
			}
			var logs bytes.Buffer
			c := f.client(t, WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			_, err := c.WBSElements.Update(context.Background(), "A", &UpdateWBSElementRequest{IsActive: Set(true)})
			if err == nil {
				t.Fatal("no error")
			}
			tok := seenToken.Load().(string)
			for _, secret := range []string{fakeSecret, tok} {
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("error carries a secret: %v", err)
				}
				if strings.Contains(logs.String(), secret) {
					t.Fatalf("log carries a secret: %s", logs.String())
				}
			}
			if !strings.Contains(err.Error(), "[REDACTED]") {
				t.Fatalf("error %q does not show the redaction", err)
			}
			if !strings.Contains(logs.String(), `"path":"/v1/wbs-elements/A"`) {
				t.Fatalf("no attempt record: %s", logs.String())
			}
		})
	}
	tok := Token{AccessToken: "abc.def.ghi"}
	if s := fmt.Sprintf("%v %+v %s", tok, tok, tok); strings.Contains(s, "abc.def.ghi") {
		t.Fatalf("Token prints itself: %s", s)
	}
}

// listServer answers every request with page and counts them; its
// client sends a static token and, unless opts say otherwise, never
// retries.
func listServer(t *testing.T, page func(w http.ResponseWriter, r *http.Request), opts ...Option) (*Client, *atomic.Int64) {
	return pageServer(t, page, append([]Option{WithAccessToken("static-token")}, opts...)...)
}

// credentialServer is listServer for a client that exchanges its
// credential at the server.
func credentialServer(t *testing.T, page func(w http.ResponseWriter, r *http.Request), opts ...Option) (*Client, *atomic.Int64) {
	return pageServer(t, page, append([]Option{WithCredentials(fakeClientID, fakeSecret)}, opts...)...)
}

func pageServer(t *testing.T, page func(w http.ResponseWriter, r *http.Request), opts ...Option) (*Client, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		page(w, r)
	}))
	t.Cleanup(srv.Close)
	opts = append([]Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 1})}, opts...)
	c, err := NewClient(srv.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, &n
}

func TestPageLoopFails(t *testing.T) {
	tests := map[string]func(w http.ResponseWriter, r *http.Request){
		"server ignores pageNumber": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data":[{"wbsElementCode":"A","isActive":true},{"wbsElementCode":"B","isActive":true}],"hits":100}`)
		},
		"server ignores pageNumber, next names page 2": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data":[{"wbsElementCode":"A","isActive":true},{"wbsElementCode":"B","isActive":true}],"hits":null,"next":"2"}`)
		},
		"next points to itself": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"data":[{"wbsElementCode":"%s","isActive":true}],"next":"/v1/wbs-elements?pageNumber=1"}`, r.URL.Query().Get("pageNumber"))
		},
	}
	for name, page := range tests {
		t.Run(name, func(t *testing.T) {
			c, n := listServer(t, page)
			var err error
			items := 0
			for _, e := range c.WBSElements.All(context.Background(), &ListOptions{PageSize: 2}) {
				if e != nil {
					err = e
					break
				}
				items++
			}
			if !errors.Is(err, ErrPageLoop) {
				t.Fatalf("err = %v after %d items and %d requests, want ErrPageLoop", err, items, n.Load())
			}
			if n.Load() > 3 {
				t.Fatalf("%d requests before the loop was caught", n.Load())
			}
		})
	}
}

func TestNextOnAnotherHostNeverGetsTheToken(t *testing.T) {
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Store(true)
		}
		fmt.Fprint(w, `{"data":[{"wbsElementCode":"EVIL","isActive":true}],"next":null}`)
	}))
	defer other.Close()
	c, _ := listServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("pageNumber") {
		case "", "1":
			fmt.Fprintf(w, `{"data":[{"wbsElementCode":"A","isActive":true}],"next":"%s/v1/wbs-elements?pageNumber=2"}`, other.URL)
		case "2":
			fmt.Fprint(w, `{"data":[{"wbsElementCode":"B","isActive":true}],"next":null}`)
		}
	})
	var codes []string
	for el, err := range c.WBSElements.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, el.Code)
	}
	if leaked.Load() {
		t.Fatal("the bearer token went to another host")
	}
	if strings.Join(codes, ",") != "A,B" {
		t.Fatalf("codes %v, want page 2 read from the client's own host", codes)
	}
}
