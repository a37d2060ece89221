package version_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wbsctl/wbsctl/internal/build"
	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// The version is a line for people and a document for -o json, as any
// command's output is, and both say what the build says of itself.
func TestVersionLineAndDocument(t *testing.T) {
	srv := wbstest.Start(t)
	b := build.Current()
	line := cmdtest.Run{}.Do(t, srv, "version")
	if want := fmt.Sprintf("wbsctl %s (commit %s, built %s)\n", b.Version, b.Commit, b.Date); line.Code != 0 || line.Out != want {
		t.Fatalf("version printed %+v, want %q", line, want)
	}
	doc := cmdtest.Run{}.Do(t, srv, "version", "-o", "json")
	var v build.Info
	if err := json.Unmarshal([]byte(doc.Out), &v); err != nil || v != b {
		t.Fatalf("version -o json printed %q (%v), want %+v", doc.Out, err, b)
	}
}
