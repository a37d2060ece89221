// Package s3test starts an S3 server in the test's process (gofakes3,
// which honours If-Match and If-None-Match on single-part writes), for
// tests of states kept in a bucket: with the test's clock as the
// server's, and faults a test turns on (a server that stalls).
package s3test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is an S3 server with the bucket "states".
type Server struct {
	// URL is the server's endpoint.
	URL   string
	clock gofakes3.TimeSourceAdvancer

	mu      sync.Mutex
	stalled chan struct{} // closed when a stall ends; nil when none
	puts    int
}

// Start starts a server with the bucket "states" for the test's life and
// returns the state URL of key on it. It takes any credential: Env gives
// the AWS SDK one.
func Start(t testing.TB, key string) string {
	t.Helper()
	return StartServer(t).State(key)
}

// StartServer starts a server whose clock, its Date and Last-Modified
// included, stands still but for Advance: a test says how much time the
// server sees pass.
func StartServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{clock: gofakes3.FixedTimeSource(time.Now().UTC().Truncate(time.Second))}
	backend := s3mem.New(s3mem.WithTimeSource(s.clock))
	fake := gofakes3.New(backend, gofakes3.WithTimeSource(s.clock), gofakes3.WithTimeSkewLimit(0)).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		stalled := s.stalled
		if r.Method == http.MethodPut {
			s.puts++
		}
		s.mu.Unlock()
		if stalled != nil {
			select {
			case <-stalled:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Date", s.clock.Now().UTC().Format(http.TimeFormat))
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		s.Resume()
		srv.Close()
	})
	if err := backend.CreateBucket("states"); err != nil {
		t.Fatal(err)
	}
	s.URL = srv.URL
	return s
}

// State is the state URL of key on the server.
func (s *Server) State(key string) string {
	return "s3://states/" + key + "?endpoint=" + s.URL + "&region=us-east-1&use_path_style=true"
}

// Advance moves the server's clock on by d.
func (s *Server) Advance(d time.Duration) { s.clock.Advance(d) }

// Stall holds every request from now on, unanswered, until Resume.
func (s *Server) Stall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stalled == nil {
		s.stalled = make(chan struct{})
	}
}

// Resume answers the requests held since Stall, and those after.
func (s *Server) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stalled != nil {
		close(s.stalled)
		s.stalled = nil
	}
}

// Puts counts the writes the server was sent.
func (s *Server) Puts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.puts
}

// Env gives the AWS SDK a credential that the test servers take, and no
// other source: nothing is looked for on the machine.
func Env(t testing.TB) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}
