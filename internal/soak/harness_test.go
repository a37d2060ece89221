package soak

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// countingServer serves a wbstest.Server on loopback and counts its
// connections and the requests in its handler.
type countingServer struct {
	*httptest.Server
	opened, closed, hijacked, peakOpen atomic.Int64

	mu       sync.Mutex
	idle     *sync.Cond
	inFlight int
}

func newCountingServer(h http.Handler) *countingServer {
	cs := &countingServer{}
	cs.idle = sync.NewCond(&cs.mu)
	cs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.inFlight++
		cs.mu.Unlock()
		defer func() {
			cs.mu.Lock()
			if cs.inFlight--; cs.inFlight == 0 {
				cs.idle.Broadcast()
			}
			cs.mu.Unlock()
		}()
		// wbstest journals a request as its ServeHTTP returns, so once
		// no request is in here the journal holds every one answered.
		h.ServeHTTP(w, r)
	}))
	cs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			cs.opened.Add(1)
			if open := cs.open(); open > cs.peakOpen.Load() {
				cs.peakOpen.Store(open)
			}
		case http.StateClosed:
			cs.closed.Add(1)
		case http.StateHijacked:
			// The faults that reset or drop hijack the connection and
			// close it themselves.
			cs.hijacked.Add(1)
		}
	}
	cs.Start()
	return cs
}

// open is the number of connections the server holds.
func (cs *countingServer) open() int64 {
	return cs.opened.Load() - cs.closed.Load() - cs.hijacked.Load()
}

// waitIdle waits until no request is in the handler, or timeout.
func (cs *countingServer) waitIdle(timeout time.Duration) bool {
	timedOut := false
	t := time.AfterFunc(timeout, func() {
		cs.mu.Lock()
		timedOut = true
		cs.idle.Broadcast()
		cs.mu.Unlock()
	})
	defer t.Stop()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for cs.inFlight > 0 && !timedOut {
		cs.idle.Wait()
	}
	return cs.inFlight == 0
}

// eventually polls cond until it holds or timeout passes, and reports
// whether it held: for what settles on its own after a close, such as
// goroutines and connections winding down.
func eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
	return true
}

// readers run SDK reads continuously until stopped. A checkpoint holds
// the gate to let the reads in flight finish and start no more.
type readers struct {
	gate  sync.RWMutex
	stop  chan struct{}
	close func() // stops the readers and waits for them; once
	wg    sync.WaitGroup

	ops, notFound atomic.Int64
	mu            sync.Mutex
	errs          []error
}

func newReaders() *readers {
	rd := &readers{stop: make(chan struct{})}
	rd.close = sync.OnceFunc(func() {
		close(rd.stop)
		rd.wg.Wait()
	})
	return rd
}

func (rd *readers) start(c *sdk.Client, codes []string, seed uint64) {
	rd.wg.Add(1)
	go func() {
		defer rd.wg.Done()
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		for {
			select {
			case <-rd.stop:
				return
			default:
			}
			rd.gate.RLock()
			err := readOnce(context.Background(), c, codes, rng)
			rd.ops.Add(1)
			if err != nil {
				// Kept under the gate, so that the error and the answer
				// behind it fall into the same checkpoint.
				rd.mu.Lock()
				rd.errs = append(rd.errs, err)
				rd.mu.Unlock()
			}
			rd.gate.RUnlock()
		}
	}()
}

// pause stops new reads and waits for those in flight; resume undoes it.
func (rd *readers) pause()  { rd.gate.Lock() }
func (rd *readers) resume() { rd.gate.Unlock() }

// takeErrors returns the errors since the last call.
func (rd *readers) takeErrors() []error {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	errs := rd.errs
	rd.errs = nil
	return errs
}

// readOnce is one read: the whole list at some page size, one page, or
// the links of one code (which may be absent at the time).
func readOnce(ctx context.Context, c *sdk.Client, codes []string, rng *rand.Rand) error {
	switch rng.IntN(3) {
	case 0:
		size := []int{0, 7, 25, 100}[rng.IntN(4)]
		for _, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: size}) {
			if err != nil {
				return err
			}
		}
	case 1:
		_, err := c.WBSElements.List(ctx, &sdk.ListOptions{PageNumber: 1 + rng.IntN(4), PageSize: 10})
		return err
	default:
		for _, err := range c.WBSElements.AllBusinessOrganizations(ctx, codes[rng.IntN(len(codes))], nil) {
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// failure is a failure reported by the apply or a reader, as far as it
// tells what the server answered.
type failure struct {
	source string
	// status and correlationID are those of the answer; status 0 is no
	// answer.
	status        int
	correlationID string
	// method and path name the request that got no answer.
	method, path string
	text         string
}

// transportRE finds the request of a failure without an answer in an
// error's text, as net/url writes it: Post "http://host/v1/...": EOF.
var transportRE = regexp.MustCompile(`\b(Get|Post|Put|Delete) "([^"]+)": `)

// correlationRE finds the correlation id wbsctl prints with an error.
var correlationRE = regexp.MustCompile(`correlation id:?\s+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)

// readerFailure describes an error of an SDK call.
func readerFailure(err error) failure {
	f := failure{source: "reader", text: err.Error()}
	var apiErr *sdk.APIError
	var urlErr *url.Error
	switch {
	case errors.As(err, &apiErr):
		f.status, f.correlationID = apiErr.StatusCode, apiErr.CorrelationID
	case errors.As(err, &urlErr):
		f.method = urlErr.Op
		if u, perr := url.Parse(urlErr.URL); perr == nil {
			f.path = u.Path
		}
	}
	return f
}

// textFailure describes a failure known only by its text, such as a
// report's detail or a command's error output.
func textFailure(source, text string, status int, correlationID string) failure {
	f := failure{source: source, text: text, status: status, correlationID: correlationID}
	if f.status == 0 && f.correlationID == "" {
		if m := correlationRE.FindStringSubmatch(text); m != nil {
			f.correlationID = m[1]
		}
	}
	if f.status == 0 && f.correlationID == "" {
		if m := transportRE.FindStringSubmatch(text); m != nil {
			f.method = m[1]
			if u, err := url.Parse(m[2]); err == nil {
				f.path = u.Path
			}
		}
	}
	return f
}

// window is the journal between two checkpoints, indexed for matching.
type window struct {
	byCorrelation map[string]wbstest.JournalEntry
	// dropped are the requests the server answered with no answer, by
	// method and path, as a count not yet matched.
	dropped map[string]int
}

func newWindow(journal []wbstest.JournalEntry) *window {
	w := &window{byCorrelation: map[string]wbstest.JournalEntry{}, dropped: map[string]int{}}
	for _, e := range journal {
		w.byCorrelation[e.CorrelationID] = e
		if e.Fault == wbstest.FaultReset || e.Fault == wbstest.FaultDropAfterCommit {
			w.dropped[e.Method+" "+e.Path]++
		}
	}
	return w
}

// match finds the answer (or the lost answer) behind f; it reports
// whether there is one and whether f is a failure without an answer.
func (w *window) match(f failure) (ok, noAnswer bool) {
	switch {
	case f.correlationID != "":
		e, found := w.byCorrelation[f.correlationID]
		return found && (f.status == 0 || e.Status == f.status), false
	case f.status != 0:
		return false, false
	case f.path != "":
		key := strings.ToUpper(f.method) + " " + f.path
		if w.dropped[key] == 0 {
			return false, true
		}
		w.dropped[key]--
		return true, true
	}
	return false, false
}

// heapAlloc is the live heap after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
