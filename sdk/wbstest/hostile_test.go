package wbstest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hangGuard bounds how long a test waits for the server to act on a
// hostile client; reaching it is the failure, never the measure.
const hangGuard = 10 * time.Second

// shortTimeouts cut off slow clients quickly in tests.
var shortTimeouts = Timeouts{ReadHeader: 200 * time.Millisecond, Read: 400 * time.Millisecond}

// listen serves srv from HTTPServer on a loopback port and returns its
// address.
func listen(t *testing.T, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer(ln.Addr().String())
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if err := conn.SetReadDeadline(time.Now().Add(hangGuard)); err != nil {
		t.Fatal(err)
	}
	return conn
}

// drip writes data a byte at a time, paced, until done is closed or a
// write fails; the returned channel is closed when it stops.
func drip(conn net.Conn, data string, done <-chan struct{}) <-chan struct{} {
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := range len(data) {
			select {
			case <-tick.C:
			case <-done:
				return
			}
			if _, err := conn.Write([]byte{data[i]}); err != nil {
				return
			}
		}
	}()
	return stopped
}

// readUntilClosed reads what the server sends until it closes the
// connection, and fails the test if the hang guard ends the wait first.
func readUntilClosed(t *testing.T, conn net.Conn) string {
	t.Helper()
	got, err := io.ReadAll(conn)
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		t.Fatalf("the server kept the connection open (read %q)", got)
	}
	return string(got)
}

// answersNext checks that the server still answers an ordinary request.
func answersNext(t *testing.T, srv *Server, addr string) {
	t.Helper()
	tok, _ := srv.IssueToken(srv.ClientID)
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/wbs-elements", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the next request: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the next request: %d", resp.StatusCode)
	}
}

func TestSlowHeadersAreCutOff(t *testing.T) {
	srv := New(WithTimeouts(shortTimeouts))
	addr := listen(t, srv)
	conn := dial(t, addr)
	done := make(chan struct{})
	// Headers that never end: only the header timeout stops them.
	stopped := drip(conn, "GET /v1/wbs-elements HTTP/1.1\r\nHost: x\r\nX-Slow: "+strings.Repeat("a", 1<<20), done)
	readUntilClosed(t, conn)
	close(done)
	<-stopped
	answersNext(t, srv, addr)
}

func TestSlowBodyIsCutOff(t *testing.T) {
	srv := New(WithTimeouts(shortTimeouts))
	addr := listen(t, srv)
	tok, _ := srv.IssueToken(srv.ClientID)
	conn := dial(t, addr)
	head := "POST /v1/wbs-elements HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tok +
		"\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
	if _, err := conn.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	stopped := drip(conn, `{"wbsElementCode":"`+strings.Repeat("a", 1000000), done)
	got := readUntilClosed(t, conn)
	close(done)
	<-stopped
	if !strings.HasPrefix(got, "HTTP/1.1 408 ") || !strings.Contains(got, `"status":408`) {
		t.Fatalf("answer to a body that was not sent in time: %q", got)
	}
	if len(srv.Elements()) != 0 {
		t.Fatal("a cut-off body created an element")
	}
	answersNext(t, srv, addr)
}

func TestTooManyHeaderBytes(t *testing.T) {
	srv := New()
	addr := listen(t, srv)
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/wbs-elements", nil)
	req.Header.Set("X-Big", strings.Repeat("a", MaxHeaderBytes+8<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("status %d, want 431", resp.StatusCode)
	}
	answersNext(t, srv, addr)
}

// A body sent chunked, without a Content-Length, is bounded as it
// arrives: a client streaming 100 MB of one JSON string gets 413 once the
// limit is passed, not after the server has read it all.
func TestHugeChunkedBodyIsCutOff(t *testing.T) {
	srv := New()
	addr := listen(t, srv)
	tok, _ := srv.IssueToken(srv.ClientID)
	conn := dial(t, addr)
	head := "POST /v1/wbs-elements HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tok +
		"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		frame := func(data string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(data), data) }
		x := frame(strings.Repeat("x", 1<<20))
		parts := []string{head, frame(`{"wbsElementCode":"`)}
		for range 100 {
			parts = append(parts, x)
		}
		parts = append(parts, frame(`"}`), "0\r\n\r\n")
		for _, p := range parts {
			if _, err := io.WriteString(conn, p); err != nil {
				return
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	var p struct{ Status int }
	if resp.StatusCode != http.StatusRequestEntityTooLarge || json.NewDecoder(resp.Body).Decode(&p) != nil || p.Status != 413 {
		t.Fatalf("status %d %+v, want a 413 problem", resp.StatusCode, p)
	}
	conn.Close()
	<-sent
	answersNext(t, srv, addr)
}
