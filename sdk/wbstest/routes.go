package wbstest

import (
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strings"
	"time"
)

// routes are the platform's operations as http.ServeMux patterns. A
// wildcard matches one escaped path segment and is unescaped after, so a
// code holding %2F stays one code (a code that is exactly "/" is routed
// by matchSlashCode, from the same table).
var routes = []struct {
	pattern string
	op      Operation
}{
	{"POST /v1/auth/tokens", OpToken},
	{"POST /v1/wbs-elements", OpCreate},
	{"GET /v1/wbs-elements", OpList},
	{"PUT /v1/wbs-elements/{code}", OpUpdate},
	{"DELETE /v1/wbs-elements/{code}", OpDelete},
	{"GET /v1/wbs-elements/{code}/business-organizations", OpListLinks},
	{"POST /v1/wbs-elements/{code}/business-organizations/delete", OpDeleteLinks},
	{"POST /integration-hub-api/v1/flows/{code}/execute", OpExecute},
}

// newMux routes each pattern to answer with its operation; anything else,
// another method on a known path included, is a 404 with problem details.
func (s *Server) newMux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			code := r.PathValue("code")
			if r.Method == http.MethodHead || (rt.op == OpExecute && strings.Contains(code, "/")) {
				s.answer(w, r, "", "")
				return
			}
			s.answer(w, r, rt.op, code)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.answer(w, r, "", "") })
	return mux
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.EscapedPath(); p != "/" && path.Clean(p) != p {
		// A path with . or .. segments or doubled slashes names no
		// endpoint (the mux would redirect it).
		s.answer(w, r, "", "")
		return
	}
	if op, code, ok := matchSlashCode(r); ok {
		s.answer(w, r, op, code)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// matchSlashCode routes a request whose code is exactly "/" (%2F alone in
// its segment) by the same table: the mux reads that segment, unescaped,
// as a trailing slash, which matches no wildcard.
func matchSlashCode(r *http.Request) (Operation, string, bool) {
	segs := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	if !slices.ContainsFunc(segs, func(s string) bool { return strings.EqualFold(s, "%2F") }) {
		return "", "", false
	}
	for _, rt := range routes {
		method, pattern, _ := strings.Cut(rt.pattern, " ")
		want := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
		if method != r.Method || len(want) != len(segs) {
			continue
		}
		code, ok := "", true
		for i, w := range want {
			switch {
			case w == "{code}" && strings.EqualFold(segs[i], "%2F"):
				code = "/"
			case w != segs[i]:
				ok = false
			}
		}
		if ok && code == "/" && rt.op != OpExecute {
			return rt.op, code, true
		}
	}
	return "", "", false
}

// answer journals, counts and answers one request of operation op (""
// for none: a 404) on the element or flow code.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, op Operation, code string) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	corr := newCorrelationID()
	rec.Header().Set("X-Correlation-Id", corr)
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
	if op == "" {
		problem(rec, r, corr, http.StatusNotFound, "not-found", "Not Found", "no such endpoint: "+r.Method+" "+r.URL.Path, nil)
		return
	}
	s.handle(rec, r, op, code, corr, &entry)
}

// handle runs the faults, authentication and rate limit of a routed
// request, then the operation.
func (s *Server) handle(w *statusRecorder, r *http.Request, op Operation, code, corr string, entry *JournalEntry) {
	s.mu.Lock()
	f := s.pickFault(op, r.Method)
	s.mu.Unlock()
	if f != nil {
		entry.Fault = f.Kind
		switch f.Kind {
		case FaultLatency:
			t := time.NewTimer(f.Latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		case FaultStatus:
			writeStatusFault(w, r, corr, f)
			return
		case FaultReset:
			abort(w)
			return
		case FaultDropAfterCommit:
			// Act on the request into a recorder, then drop the answer.
			s.serve(httptest.NewRecorder(), r, op, code, corr, entry)
			abort(w)
			return
		}
	}
	s.serve(w, r, op, code, corr, entry)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, op Operation, code, corr string, entry *JournalEntry) {
	if op == OpToken {
		s.token(w, r, corr)
		return
	}
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || tok == "" {
		problem(w, r, corr, http.StatusUnauthorized, "unauthorized", "Unauthorized", "a bearer token is required", nil)
		return
	}
	c, err := s.verify(tok)
	if err != nil {
		problem(w, r, corr, http.StatusUnauthorized, "unauthorized", "Unauthorized", err.Error(), nil)
		return
	}
	entry.ClientID = c.Sub
	if s.rateLimited(w, c.Sub) {
		return
	}
	switch op {
	case OpCreate:
		s.create(w, r, corr)
	case OpList:
		s.list(w, r, corr)
	case OpUpdate:
		s.update(w, r, code, corr)
	case OpDelete:
		s.delete(w, r, code, corr)
	case OpDeleteLinks:
		s.deleteLinks(w, r, code, corr)
	case OpListLinks:
		s.listLinks(w, r, code, corr)
	case OpExecute:
		s.execute(w, r, code, c, corr)
	}
}
