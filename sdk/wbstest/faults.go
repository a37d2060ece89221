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

// window is the rate-limit window of one client id: a fixed minute from
// start with used requests, or a sliding window's bucket of tokens as
// refilled at last.
type window struct {
	start  time.Time
	used   int
	tokens float64
	last   time.Time
}

// rateLimited counts a request of clientID against the limit and sets
// the RateLimit-* headers; it reports whether the request is refused.
func (s *Server) rateLimited(w http.ResponseWriter, clientID string) bool {
	if s.rateLimit <= 0 {
		return false
	}
	now := s.now()
	s.mu.Lock()
	var remaining int
	var reset, retry time.Duration
	var refused bool
	if s.rateWindow == SlidingWindow {
		remaining, reset, retry, refused = s.slide(clientID, now)
	} else {
		remaining, reset, refused = s.fixed(clientID, now)
		retry = reset
	}
	if refused {
		s.stats.RateLimited++
	}
	s.mu.Unlock()
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(s.rateLimit))
	h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(seconds(reset)))
	if refused {
		h.Set("Retry-After", strconv.Itoa(seconds(retry)))
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"message": "API rate limit exceeded"})
	}
	return refused
}

// fixed counts a request in clientID's fixed window: the requests left,
// the time to the window's end, and whether it is refused.
func (s *Server) fixed(clientID string, now time.Time) (remaining int, reset time.Duration, refused bool) {
	win := s.windows[clientID]
	if win == nil || now.Sub(win.start) >= time.Minute {
		win = &window{start: now}
		s.windows[clientID] = win
	}
	win.used++
	return max(s.rateLimit-win.used, 0), win.start.Add(time.Minute).Sub(now), win.used > s.rateLimit
}

// slide takes a request from clientID's bucket: the whole requests left,
// the time until the bucket is full again, the time until a request is
// allowed, and whether this one is refused.
func (s *Server) slide(clientID string, now time.Time) (remaining int, reset, retry time.Duration, refused bool) {
	limit := float64(s.rateLimit)
	perSecond := limit / 60
	win := s.windows[clientID]
	if win == nil {
		win = &window{tokens: limit, last: now}
		s.windows[clientID] = win
	}
	win.tokens = min(limit, win.tokens+now.Sub(win.last).Seconds()*perSecond)
	win.last = now
	refused = win.tokens < 1
	if !refused {
		win.tokens--
	}
	toFull := time.Duration((limit - win.tokens) / perSecond * float64(time.Second))
	toOne := time.Duration(max(1-win.tokens, 0) / perSecond * float64(time.Second))
	return int(win.tokens), toFull, toOne, refused
}

// seconds is d in whole seconds, rounded up, at least one.
func seconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}
