package wbstest

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Operation names a kind of request the server answers.
type Operation string

// The operations of the platform.
const (
	OpToken       Operation = "token"
	OpCreate      Operation = "create"
	OpList        Operation = "list"
	OpUpdate      Operation = "update"
	OpDelete      Operation = "delete"
	OpDeleteLinks Operation = "deleteLinks"
	OpListLinks   Operation = "listLinks"
	OpExecute     Operation = "execute"
)

// OrgUpdateMode says what an update's businessOrganizations does to the
// links an element has: the spec leaves it open.
type OrgUpdateMode int

const (
	// OrgMerge adds the listed organizations and keeps the others.
	OrgMerge OrgUpdateMode = iota
	// OrgReplace makes the listed organizations the element's only links.
	OrgReplace
)

// BusinessOrganization is a link of an element.
type BusinessOrganization struct {
	Code       string `json:"code"`
	EntityType string `json:"entityType"`
}

// Element is the server's state of one WBS element.
type Element struct {
	Code                  string
	Description           *string
	IsActive              bool
	BusinessOrganizations []BusinessOrganization
}

func (e Element) clone() Element {
	if e.Description != nil {
		d := *e.Description
		e.Description = &d
	}
	e.BusinessOrganizations = append([]BusinessOrganization(nil), e.BusinessOrganizations...)
	return e
}

// JournalEntry records one request.
type JournalEntry struct {
	Time   time.Time
	Method string
	Path   string
	// RawPath is the path as it was sent, escaped (%2F in a code stays).
	RawPath       string
	RawQuery      string
	Operation     Operation
	Status        int
	ClientID      string
	Fault         FaultKind
	CorrelationID string
}

// Stats counts what the server did.
type Stats struct {
	TokenExchanges int
	Requests       map[Operation]int
	Faults         map[FaultKind]int
	// Creates counts the creates that stored an element.
	Creates int
	// RateLimited counts the 429 answers of the rate limit.
	RateLimited int
}

// Server is an in-process, stateful fake of the platform. It is an
// http.Handler; NewServer also starts it on loopback.
type Server struct {
	// URL is the base URL of a server started by NewServer.
	URL string
	// ClientID and ClientSecret are the first credential.
	ClientID, ClientSecret string

	creds       []credential
	lifetime    time.Duration
	now         func() time.Time
	orgMode     OrgUpdateMode
	maxPageSize int
	nextStyle   NextStyle
	hits        HitsMeaning
	emptyStatus int
	pastEnd     PastEnd
	duplicate   DuplicateAnswer
	rateLimit   int
	rateWindow  RateWindow
	seed        uint64
	maxBody     int64
	timeouts    Timeouts
	logger      *slog.Logger
	clientCAs   []byte
	key         []byte
	ts          *httptest.Server

	mu       sync.Mutex
	elements map[string]*Element
	order    []string
	journal  []JournalEntry
	stats    Stats
	faults   []*fault
	mux      *http.ServeMux
	// generation advances with ExpireTokens; older tokens are refused.
	generation int
	windows    map[string]*window
	rng        *randSource
}

// New returns a server that is not listening: an http.Handler for
// wbsctl serve or an httptest.Server of the caller's own.
func New(opts ...Option) *Server {
	s := &Server{
		lifetime: time.Hour, now: time.Now, maxPageSize: 100, maxBody: 1 << 20, timeouts: defaultTimeouts,
		elements: map[string]*Element{}, windows: map[string]*window{},
		key: randomBytes(32),
	}
	for _, o := range opts {
		o(s)
	}
	if len(s.creds) == 0 {
		s.creds = []credential{{"integrationhub-" + hex.EncodeToString(randomBytes(4)), hex.EncodeToString(randomBytes(16))}}
	}
	s.ClientID, s.ClientSecret = s.creds[0].id, s.creds[0].secret
	s.rng = newRandSource(s.seed)
	s.mux = s.newMux()
	s.stats = Stats{Requests: map[Operation]int{}, Faults: map[FaultKind]int{}}
	return s
}

// NewServer starts a server on a loopback port; call Close when done
// (a test calls Start instead).
func NewServer(opts ...Option) *Server {
	s := New(opts...)
	s.ts = httptest.NewServer(s)
	s.URL = s.ts.URL
	return s
}

// Start starts a server on a loopback port, as NewServer does, and
// closes it when the test ends: t is a *testing.T, *testing.B or
// *testing.F. It takes only the method it calls, not testing.TB, so that
// the package does not import testing and a program serving the
// reference server (wbsctl serve) does not link it.
func Start(t interface{ Cleanup(func()) }, opts ...Option) *Server {
	s := NewServer(opts...)
	t.Cleanup(s.Close)
	return s
}

// Transport returns a round tripper that answers every request in memory
// with the server, whatever host the request names: for tests that run
// many clients against a server from New without a socket. A request's
// context is the server's too.
func (s *Server) Transport() http.RoundTripper { return memoryTransport{s} }

type memoryTransport struct{ s *Server }

func (t memoryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	r = r.Clone(r.Context())
	if r.Host == "" {
		r.Host = r.URL.Host
	}
	r.RequestURI = r.URL.RequestURI()
	t.s.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// Close stops a server started by NewServer or Start.
func (s *Server) Close() {
	if s.ts != nil {
		s.ts.Close()
	}
}

// MaxHeaderBytes bounds the request line and headers of a server from
// HTTPServer; beyond it (and net/http's small allowance) the answer is
// 431 Request Header Fields Too Large.
const MaxHeaderBytes = 64 << 10

// HTTPServer returns an http.Server for addr with the timeouts a server
// exposed to real clients needs (see Timeouts and WithTimeouts) and a
// bound on header bytes (MaxHeaderBytes).
func (s *Server) HTTPServer(addr string) *http.Server {
	t := s.timeouts
	return &http.Server{
		Addr: addr, Handler: s,
		ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle, MaxHeaderBytes: MaxHeaderBytes,
	}
}

// Elements returns a copy of every element, in creation order.
func (s *Server) Elements() []Element {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Element, 0, len(s.order))
	for _, code := range s.order {
		out = append(out, s.elements[code].clone())
	}
	return out
}

// Element returns a copy of one element.
func (s *Server) Element(code string) (Element, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.elements[code]
	if !ok {
		return Element{}, false
	}
	return e.clone(), true
}

// Put stores elements directly, replacing any with the same code.
func (s *Server) Put(elements ...Element) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range elements {
		e = e.clone()
		if _, ok := s.elements[e.Code]; !ok {
			s.order = append(s.order, e.Code)
		}
		s.elements[e.Code] = &e
	}
}

// Journal returns every request so far.
func (s *Server) Journal() []JournalEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]JournalEntry(nil), s.journal...)
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Requests, st.Faults = map[Operation]int{}, map[FaultKind]int{}
	for k, v := range s.stats.Requests {
		st.Requests[k] = v
	}
	for k, v := range s.stats.Faults {
		st.Faults[k] = v
	}
	return st
}

// ResetStats zeroes the counters and empties the journal.
func (s *Server) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats = Stats{Requests: map[Operation]int{}, Faults: map[FaultKind]int{}}
	s.journal = nil
}

// SetOrgUpdateMode changes what an update's businessOrganizations does.
func (s *Server) SetOrgUpdateMode(m OrgUpdateMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orgMode = m
}

// ExpireTokens makes every token issued so far invalid.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.generation++
}

// AddFaults adds fault rules.
func (s *Server) AddFaults(rules ...FaultRule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, newFaults(rules)...)
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection for faults.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

func newCorrelationID() string {
	b := randomBytes(16)
	return hex.EncodeToString(b[:4]) + "-" + hex.EncodeToString(b[4:6]) + "-" + hex.EncodeToString(b[6:8]) + "-" + hex.EncodeToString(b[8:10]) + "-" + hex.EncodeToString(b[10:])
}
