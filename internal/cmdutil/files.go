package cmdutil

import (
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
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return b, err
}
