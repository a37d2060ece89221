// Package iostreams gives commands their standard streams, so that tests
// run them in-process with buffers.
package iostreams

import (
	"bytes"
	"io"
	"os"
)

// IOStreams are a command's input, output (data) and error output
// (everything else).
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// System returns the process's streams.
func System() *IOStreams { return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }

// Test returns streams over buffers: input, output and error output.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
