// Package iostreams gives commands their standard streams and says, in
// one place, whether each is a terminal; tests run commands in-process
// with buffers and a forced mode.
package iostreams

import (
	"bytes"
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

// System returns the process's streams.
func System() *IOStreams {
	_, noColor := os.LookupEnv("NO_COLOR")
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		NoColor:   noColor,
	}
}

// Test returns streams over buffers, none a terminal: input, output and
// error output.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
