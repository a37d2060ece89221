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
