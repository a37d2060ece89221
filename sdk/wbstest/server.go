package wbstest

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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

// Option configures a Server.
type Option func(*Server)

// WithCredential adds a credential the token endpoint accepts. Without
// one, the server makes one up (see Server.ClientID).
func WithCredential(clientID, secret string) Option {
	return func(s *Server) { s.creds = append(s.creds, credential{clientID, secret}) }
}

// WithTokenLifetime sets how long issued tokens are valid; default 1 h.
func WithTokenLifetime(d time.Duration) Option { return func(s *Server) { s.lifetime = d } }

// WithClock replaces time.Now for token expiry and the rate limit.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithOrgUpdateMode sets what an update's businessOrganizations does.
func WithOrgUpdateMode(m OrgUpdateMode) Option { return func(s *Server) { s.orgMode = m } }

// WithMaxPageSize sets the largest page size the server answers; default
// 100. A larger pageSize is served at this size, silently, as a platform
// that caps its pages does.
func WithMaxPageSize(n int) Option { return func(s *Server) { s.maxPageSize = n } }

// WithRateLimit answers 429 beyond perMinute requests per minute and
// client id; 0 (the default) is no limit.
func WithRateLimit(perMinute int) Option { return func(s *Server) { s.rateLimit = perMinute } }

// WithFaults adds fault rules; see FaultRule.
func WithFaults(rules ...FaultRule) Option {
	return func(s *Server) { s.faults = append(s.faults, newFaults(rules)...) }
}

// WithSeed seeds the random choices of probabilistic faults.
func WithSeed(seed int64) Option { return func(s *Server) { s.seed = uint64(seed) } }

// WithMaxBodyBytes bounds request bodies; default 1 MiB.
func WithMaxBodyBytes(n int64) Option { return func(s *Server) { s.maxBody = n } }

// Timeouts bound how long a server from HTTPServer waits on a client, so
// that a slow or stalled one is cut off; a zero field keeps its default.
type Timeouts struct {
	// ReadHeader bounds reading a request's line and headers; default 5 s.
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included; default 30 s.
	Read time.Duration
	// Write bounds writing an answer, from the end of the headers; default 60 s.
	Write time.Duration
	// Idle bounds a kept-alive connection between requests; default 2 min.
	Idle time.Duration
}

var defaultTimeouts = Timeouts{ReadHeader: 5 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second, Idle: 2 * time.Minute}

// WithTimeouts sets the timeouts of the servers HTTPServer returns.
func WithTimeouts(t Timeouts) Option {
	return func(s *Server) {
		for _, f := range []struct {
			dst *time.Duration
			v   time.Duration
		}{
			{&s.timeouts.ReadHeader, t.ReadHeader}, {&s.timeouts.Read, t.Read}, {&s.timeouts.Write, t.Write}, {&s.timeouts.Idle, t.Idle},
		} {
			if f.v > 0 {
				*f.dst = f.v
			}
		}
	}
}

// WithLogger logs one line per request; never a header or a body.
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.logger = l } }

type credential struct{ id, secret string }

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
	rateLimit   int
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
	s.stats = Stats{Requests: map[Operation]int{}, Faults: map[FaultKind]int{}}
	return s
}

// NewServer starts a server on a loopback port; call Close when done.
func NewServer(opts ...Option) *Server {
	s := New(opts...)
	s.ts = httptest.NewServer(s)
	s.URL = s.ts.URL
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

// Close stops a server started by NewServer.
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

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	corr := newCorrelationID()
	rec.Header().Set("X-Correlation-Id", corr)
	op, code, ok := route(r)
	entry := JournalEntry{Time: s.now(), Method: r.Method, Path: r.URL.Path, RawPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Operation: op, CorrelationID: corr}
	if op != "" {
		// Counted before answering, so that a client never sees its
		// answer before the count.
		s.mu.Lock()
		s.stats.Requests[op]++
		s.mu.Unlock()
	}
	defer func() {
		entry.Status = rec.status
		s.mu.Lock()
		s.journal = append(s.journal, entry)
		s.mu.Unlock()
		if s.logger != nil {
			s.logger.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration", time.Since(start), "fault", string(entry.Fault))
		}
	}()
	if !ok {
		problem(rec, r, corr, http.StatusNotFound, "not-found", "Not Found", "no such endpoint: "+r.Method+" "+r.URL.Path, nil)
		return
	}
	s.handle(rec, r, op, code, corr, &entry)
}

// route maps a request to its operation and, where the path has one, the
// element code (URL-decoded, so %2F in a code is a slash of the code).
func route(r *http.Request) (Operation, string, bool) {
	p := r.URL.EscapedPath()
	switch {
	case p == "/v1/auth/tokens" && r.Method == http.MethodPost:
		return OpToken, "", true
	case p == "/v1/wbs-elements" && r.Method == http.MethodPost:
		return OpCreate, "", true
	case p == "/v1/wbs-elements" && r.Method == http.MethodGet:
		return OpList, "", true
	case strings.HasPrefix(p, "/integration-hub-api/v1/flows/") && strings.HasSuffix(p, "/execute") && r.Method == http.MethodPost:
		id, ok := unescape(strings.TrimSuffix(strings.TrimPrefix(p, "/integration-hub-api/v1/flows/"), "/execute"))
		return OpExecute, id, ok && id != "" && !strings.Contains(id, "/")
	case strings.HasPrefix(p, "/v1/wbs-elements/"):
		rest := strings.TrimPrefix(p, "/v1/wbs-elements/")
		seg := strings.Split(rest, "/")
		code, ok := unescape(seg[0])
		if !ok || code == "" {
			return "", "", false
		}
		switch {
		case len(seg) == 1 && r.Method == http.MethodPut:
			return OpUpdate, code, true
		case len(seg) == 1 && r.Method == http.MethodDelete:
			return OpDelete, code, true
		case len(seg) == 2 && seg[1] == "business-organizations" && r.Method == http.MethodGet:
			return OpListLinks, code, true
		case len(seg) == 3 && seg[1] == "business-organizations" && seg[2] == "delete" && r.Method == http.MethodPost:
			return OpDeleteLinks, code, true
		}
	}
	return "", "", false
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

// unescape decodes one escaped path segment.
func unescape(seg string) (string, bool) {
	s, err := url.PathUnescape(seg)
	return s, err == nil
}
