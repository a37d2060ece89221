package wbstest

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// FaultKind is what a fault does to a request.
type FaultKind string

// The kinds of fault.
const (
	// FaultLatency delays the answer (the request is then served).
	FaultLatency FaultKind = "latency"
	// FaultStatus answers with Status (and Retry-After) without acting.
	FaultStatus FaultKind = "status"
	// FaultReset closes the connection before acting: nothing changes.
	FaultReset FaultKind = "reset"
	// FaultDropAfterCommit acts on the request, then closes the connection
	// without answering: the client cannot tell whether it worked.
	FaultDropAfterCommit FaultKind = "drop-after-commit"
)

// FaultRule injects a fault into matching requests.
type FaultRule struct {
	// Operation and Method select requests; empty matches any.
	Operation Operation
	Method    string
	Kind      FaultKind
	// Status and RetryAfter are the answer of a FaultStatus.
	Status     int
	RetryAfter time.Duration
	// Latency is the delay of a FaultLatency.
	Latency time.Duration
	// Nth fires on the Nth matching request (1-based); 0 means not by count.
	Nth int
	// Probability fires on that share of matching requests, with the
	// server's seeded random source.
	Probability float64
	// Times bounds how often the rule fires; 0 is unbounded.
	Times int
}

type fault struct {
	FaultRule
	seen, fired int
}

func newFaults(rules []FaultRule) []*fault {
	out := make([]*fault, len(rules))
	for i, r := range rules {
		out[i] = &fault{FaultRule: r}
	}
	return out
}

// pickFault returns the first rule that fires for the request; s.mu held.
func (s *Server) pickFault(op Operation, method string) *FaultRule {
	for _, f := range s.faults {
		if (f.Operation != "" && f.Operation != op) || (f.Method != "" && f.Method != method) {
			continue
		}
		if f.Times > 0 && f.fired >= f.Times {
			continue
		}
		f.seen++
		fire := (f.Nth > 0 && f.seen == f.Nth) || (f.Nth == 0 && f.Probability > 0 && s.rng.float() < f.Probability) ||
			(f.Nth == 0 && f.Probability == 0)
		if fire {
			// Counted here, before the fault acts: a client that sees a
			// reset may read the counters before the handler returns.
			f.fired++
			s.stats.Faults[f.Kind]++
			r := f.FaultRule
			return &r
		}
	}
	return nil
}

// abort closes the client's connection without an answer.
func abort(w http.ResponseWriter) {
	if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = c.Close()
		return
	}
	// HTTP/2 or a recorder: the only way left to drop the answer.
	panic(http.ErrAbortHandler)
}

func writeStatusFault(w http.ResponseWriter, r *http.Request, corr string, f *FaultRule) {
	if f.RetryAfter > 0 || f.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(int((f.RetryAfter+time.Second-1)/time.Second)))
	}
	if f.Status == http.StatusTooManyRequests {
		writeJSON(w, f.Status, map[string]string{"message": "API rate limit exceeded"})
		return
	}
	problem(w, r, corr, f.Status, "injected", http.StatusText(f.Status), "injected fault", nil)
}

// randSource is a seeded random source safe under s.mu.
type randSource struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newRandSource(seed uint64) *randSource {
	return &randSource{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (r *randSource) float() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.r.Float64()
}

// window is a fixed one-minute rate-limit window of one client id.
type window struct {
	start time.Time
	used  int
}

// rateLimited counts a request of clientID against the limit and sets
// the RateLimit-* headers; it reports whether the request is refused.
func (s *Server) rateLimited(w http.ResponseWriter, clientID string) bool {
	if s.rateLimit <= 0 {
		return false
	}
	now := s.now()
	s.mu.Lock()
	win := s.windows[clientID]
	if win == nil || now.Sub(win.start) >= time.Minute {
		win = &window{start: now}
		s.windows[clientID] = win
	}
	win.used++
	used := win.used
	reset := max(int((win.start.Add(time.Minute).Sub(now)+time.Second-1)/time.Second), 1)
	refused := used > s.rateLimit
	if refused {
		s.stats.RateLimited++
	}
	s.mu.Unlock()
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(s.rateLimit))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(s.rateLimit-used, 0)))
	h.Set("RateLimit-Reset", strconv.Itoa(reset))
	if refused {
		h.Set("Retry-After", strconv.Itoa(reset))
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"message": "API rate limit exceeded"})
	}
	return refused
}
