package api_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// received is a request as the platform received it.
type received struct {
	Method string
	// RequestURI is the target of the request line, as sent.
	RequestURI string
	Host       string
	Header     http.Header
	Body       string
}

// platform stands for the platform at a base URL with a path, as a
// shared front end that serves several tenants would: it records every
// request it gets, hands the token exchange under the base path to a
// reference server, and answers every other request with answer.
type platform struct {
	srv      *wbstest.Server
	basePath string
	answer   func(w http.ResponseWriter, r *http.Request)

	mu  sync.Mutex
	all []received
}

// newPlatform starts a platform whose base URL has the path basePath
// ("/tenant-a") and that answers every request with 200 and {}.
func newPlatform(t *testing.T, basePath string) *platform {
	t.Helper()
	p := &platform{basePath: basePath, answer: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodHead {
			io.WriteString(w, "{}")
		}
	}}
	p.srv = cmdtest.Behind(t, wbstest.New(), func(w http.ResponseWriter, r *http.Request) bool {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.all = append(p.all, received{r.Method, r.RequestURI, r.Host, r.Header.Clone(), string(body)})
		p.mu.Unlock()
		if r.URL.Path == basePath+"/v1/auth/tokens" {
			r.URL.Path, r.URL.RawPath = "/v1/auth/tokens", ""
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			return false
		}
		p.answer(w, r)
		return true
	})
	return p
}

// baseURL is the base URL wbsctl is given.
func (p *platform) baseURL() string { return p.srv.URL + p.basePath }

// run runs wbsctl api with args against the platform.
func (p *platform) run(t *testing.T, r cmdtest.Run, args ...string) cmdtest.Result {
	t.Helper()
	if r.Env == nil {
		r.Env = map[string]string{}
	}
	r.Env["WBSCTL_BASE_URL"] = p.baseURL()
	return r.Do(t, p.srv, append([]string{"api"}, args...)...)
}

// requests returns the requests received besides the token exchange, and
// forgets every request.
func (p *platform) requests() []received {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []received
	for _, r := range p.all {
		if r.Header.Get("Authorization") != "" {
			out = append(out, r)
		}
	}
	p.all = nil
	return out
}

// take returns every request received, the token exchange included, and
// forgets them.
func (p *platform) take() []received {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := p.all
	p.all = nil
	return all
}

// reached returns how many requests of any kind, the token exchange
// included, reached the platform, and forgets them.
func (p *platform) reached() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.all)
	p.all = nil
	return n
}

// only returns the one request besides the token exchange, failing the
// test when there is not exactly one.
func (p *platform) only(t *testing.T, res cmdtest.Result) received {
	t.Helper()
	reqs := p.requests()
	if res.Code != 0 || len(reqs) != 1 {
		t.Fatalf("exit %d, %d requests: %s%s", res.Code, len(reqs), res.Out, res.ErrOut)
	}
	return reqs[0]
}
