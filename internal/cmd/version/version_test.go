package version_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// The version is a line for people and a document for -o json, as any
// command's output is.
func TestVersionLineAndDocument(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	line := cmdtest.Run{}.Do(t, srv, "version")
	if line.Code != 0 || !strings.HasPrefix(line.Out, "wbsctl ") || !strings.Contains(line.Out, "(commit ") {
		t.Fatalf("version printed %+v", line)
	}
	doc := cmdtest.Run{}.Do(t, srv, "version", "-o", "json")
	var v struct{ Version, Commit, Date string }
	if err := json.Unmarshal([]byte(doc.Out), &v); err != nil || v.Version == "" || !strings.Contains(line.Out, v.Version) {
		t.Fatalf("version -o json printed %q (%v)", doc.Out, err)
	}
}
