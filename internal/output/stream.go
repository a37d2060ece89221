package output

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// flushDelay is the longest a streamed row waits in the buffer.
const flushDelay = 100 * time.Millisecond

// streamWriter buffers what a Printer writes and passes it on when the
// buffer fills, when the Printer is flushed, or flushDelay after the first
// byte it holds: a listing of a million rows is not a million writes, and
// a slow one still shows each page as it comes.
type streamWriter struct {
	mu    sync.Mutex
	buf   *bufio.Writer
	timer *time.Timer
	err   error // the first write error, returned from then on
}

func newStreamWriter(w io.Writer) *streamWriter {
	return &streamWriter{buf: bufio.NewWriterSize(w, 64<<10)}
}

func (s *streamWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.buf.Write(p)
	if err != nil {
		s.err = err
		return n, err
	}
	if s.buf.Buffered() > 0 && s.timer == nil {
		s.timer = time.AfterFunc(flushDelay, func() { _ = s.Flush() })
	}
	return n, nil
}

// Flush passes on what the buffer holds.
func (s *streamWriter) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.err == nil {
		s.err = s.buf.Flush()
	}
	return s.err
}
