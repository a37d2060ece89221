package statestore_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/statestore"
)

// A first run with --state .wbsctl/state in a fresh clone has no .wbsctl
// yet: the lock makes the folder, readable by its owner only, and the
// state is written there.
func TestFileStateMakesItsFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".wbsctl", "nested")
	path := filepath.Join(dir, "state")
	ctx := context.Background()
	st := statestore.NewFile(path)
	lease, err := st.Lock(ctx, statestore.NewHolder("apply", "", time.Now()), 0)
	if err != nil {
		t.Fatalf("lock of a state whose folder is not there: %v", err)
	}
	defer lease.Release(ctx)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Fatalf("the state's folder is %v, want drwx------", fi.Mode())
	}
	if _, err := st.Write(ctx, statestore.NoVersion, func(w io.Writer) error {
		_, err := w.Write([]byte("{}"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rc, _, err := st.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if b, _ := io.ReadAll(rc); !bytes.Equal(b, []byte("{}")) {
		t.Fatalf("read back %q", b)
	}
}
