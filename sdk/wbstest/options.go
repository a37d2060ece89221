package wbstest

import (
	"log/slog"
	"time"
)

// Option configures a Server.
type Option func(*Server)

// WithCredential adds a credential the token endpoint accepts. Without
// one, the server makes one up (see Server.ClientID).
func WithCredential(clientID, secret string) Option {
	return func(s *Server) { s.creds = append(s.creds, credential{clientID, secret}) }
}

// WithTokenLifetime sets how long issued tokens are valid; default 1 h.
// It is kept to the millisecond: expiresIn is answered in seconds with a
// fraction where it has one, and the token's exp claim has milliseconds.
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
// client id; 0 (the default) is no limit. WithRateWindow says how the
// minute is counted.
func WithRateLimit(perMinute int) Option { return func(s *Server) { s.rateLimit = perMinute } }

// RateWindow is how WithRateLimit counts a client id's minute. The spec
// says neither, so both are offered, for testing a client's pacing
// against each.
type RateWindow int

const (
	// FixedWindow allows perMinute requests in the minute that a client
	// id's first request starts, then in the next such minute; the
	// default.
	FixedWindow RateWindow = iota
	// SlidingWindow is a bucket of perMinute requests refilled
	// continuously, at perMinute a minute: a request is allowed whenever
	// a whole one has been refilled.
	SlidingWindow
)

// WithRateWindow sets how WithRateLimit counts; default FixedWindow.
func WithRateWindow(w RateWindow) Option { return func(s *Server) { s.rateWindow = w } }

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
