// Package iostreams gives commands their standard streams and says, in
// one place, whether each is a terminal and whether a GitHub Actions
// runner reads the output; tests run commands in-process with buffers
// and a forced mode.
package iostreams

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are a command's input, output (data) and error output
// (everything else).
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// StdinTTY, StdoutTTY and StderrTTY tell whether each stream is a
	// terminal: a table or a plain listing, a prompt or an error.
	StdinTTY, StdoutTTY, StderrTTY bool
	// NoColor is set when NO_COLOR is.
	NoColor bool
	// ActionsLog is set when a GitHub Actions runner reads Out as the
	// step's log: GITHUB_ACTIONS=true and Out not a file. The runner
	// runs every line that reads as a workflow command, such as
	// ::add-mask:: or ::error::, so data goes through FencedOut.
	ActionsLog bool

	fence *stopCommands // FencedOut's, from its first call
}

// IsStdoutTTY reports whether output goes to a terminal: a table rather
// than tab-separated rows, colour unless NO_COLOR.
func (s *IOStreams) IsStdoutTTY() bool { return s.StdoutTTY }

// IsStderrTTY reports whether error output goes to a terminal: a progress
// bar rather than progress lines, and hints for a person.
func (s *IOStreams) IsStderrTTY() bool { return s.StderrTTY }

// CanPrompt reports whether a question may be asked: it is written to
// error output and answered on input, so both must be a terminal.
func (s *IOStreams) CanPrompt() bool { return s.StdinTTY && s.StderrTTY }

// ColorEnabled reports whether output may be coloured: a terminal, and no
// NO_COLOR.
func (s *IOStreams) ColorEnabled() bool { return s.StdoutTTY && !s.NoColor }

// FencedOut returns Out for data that a platform or a file wrote. Where
// a GitHub Actions runner reads Out (ActionsLog), the data is fenced so
// that no line of it runs as a workflow command: the runner's
// ::stop-commands:: goes before the first byte, and EndFence ends the
// fence after the last. Every call returns the same fence.
func (s *IOStreams) FencedOut() io.Writer {
	if !s.ActionsLog {
		return s.Out
	}
	if s.fence == nil {
		s.fence = &stopCommands{w: s.Out}
	}
	return s.fence
}

// EndFence ends the fence that FencedOut opened, if any data went
// through it: the runner runs workflow commands again. A command's run
// ends with it.
func (s *IOStreams) EndFence() error {
	if s.fence == nil {
		return nil
	}
	return s.fence.end()
}

// stopCommands passes data through as it is, but for a line that would
// read as a workflow command (one that starts with "::" once the runner
// trims it): before the first such line it writes the runner's
// "::stop-commands::TOKEN", and the fence lasts until end writes
// "::TOKEN::". Data in which no line reads as a command (a JSON
// document, a table, a count read by $(…)) is left exact, and the data
// cannot end the fence early because it cannot guess the token.
type stopCommands struct {
	w io.Writer
	// token is the open fence's, "" while none is open: each fence
	// draws its own.
	token string
	// midLine is whether the data written so far ends inside a line
	// whose start has been judged; head holds the start of a line not
	// yet judged: what the runner may trim, and a first ':'.
	midLine bool
	head    []byte
}

// maxHead bounds the start of a line held before it is judged: a line
// that long without a sign either way is fenced.
const maxHead = 4096

func (f *stopCommands) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 {
		if f.token != "" || f.midLine {
			// Judged: through to the end of the line.
			i := bytes.IndexAny(p, "\r\n")
			chunk := p
			if i >= 0 {
				chunk = p[:i+1]
			}
			if _, err := f.w.Write(chunk); err != nil {
				return 0, err
			}
			f.midLine = i < 0
			p = p[len(chunk):]
			continue
		}
		b := p[0]
		colon := len(f.head) > 0 && f.head[len(f.head)-1] == ':'
		switch {
		case colon && b == ':':
			if err := f.open(); err != nil {
				return 0, err
			}
			continue
		case !colon && (b == ':' || b == ' ' || b == '\t' || b == '\v' || b == '\f' || b >= 0x80):
			// What the runner may trim (any non-ASCII byte is taken for
			// Unicode white space), or a first ':': not judged yet.
			if len(f.head) < maxHead {
				f.head = append(f.head, b)
				p = p[1:]
				continue
			}
			if err := f.open(); err != nil {
				return 0, err
			}
			continue
		}
		// Judged harmless: the held start, then the rest of the line.
		f.head = append(f.head, b)
		if _, err := f.w.Write(f.head); err != nil {
			return 0, err
		}
		f.midLine = b != '\r' && b != '\n'
		f.head = f.head[:0]
		p = p[1:]
	}
	return written, nil
}

// open writes the fence's opening line, then the held start of the line.
func (f *stopCommands) open() error {
	f.token = stopToken()
	if _, err := io.WriteString(f.w, "::stop-commands::"+f.token+"\n"); err != nil {
		return err
	}
	_, err := f.w.Write(f.head)
	f.midLine = len(f.head) > 0
	f.head = f.head[:0]
	return err
}

// end writes the closing line, on a line of its own, if a fence is open;
// otherwise what is held of a last line, which ended without reading as
// a command.
func (f *stopCommands) end() error {
	if f.token == "" {
		_, err := f.w.Write(f.head)
		f.head, f.midLine = f.head[:0], false
		return err
	}
	closing := "::" + f.token + "::\n"
	if f.midLine {
		closing = "\n" + closing
	}
	f.token, f.midLine = "", false
	_, err := io.WriteString(f.w, closing)
	return err
}

// stopToken draws a fence's token: 128 random bits, which neither the
// data nor anyone reading an earlier log can guess.
func stopToken() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails: it crashes the program first
	return hex.EncodeToString(b)
}

// System returns the process's streams.
func System() *IOStreams {
	_, noColor := os.LookupEnv("NO_COLOR")
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		NoColor:   noColor,
		// A file is not the log: fence lines there would only corrupt
		// the data, such as an export redirected to elements.csv.
		ActionsLog: os.Getenv("GITHUB_ACTIONS") == "true" && !isFile(os.Stdout),
	}
}

// isFile reports whether f is a regular file rather than a pipe or a
// terminal.
func isFile(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// Test returns streams over buffers, none a terminal: input, output and
// error output.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
