package cmdutil

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// ReadFileOrStdin reads the file name, or in when name is "-", refusing
// more than limit bytes.
func ReadFileOrStdin(in io.Reader, name string, limit int64) ([]byte, error) {
	r := in
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	// A file is read into a buffer of its size, not one grown to twice it.
	size := int64(0)
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= limit {
			size = fi.Size()
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	b := buf.Bytes()
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return b, err
}
