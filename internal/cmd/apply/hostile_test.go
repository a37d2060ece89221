package apply_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// brokenCreates is a reference server whose create answers are replaced:
// forward says whether the create reaches the server first.
func brokenCreates(t *testing.T, forward bool, answer func(w http.ResponseWriter)) *wbstest.Server {
	srv := wbstest.New()
	return cmdtest.Behind(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/wbs-elements" {
			return false
		}
		if forward {
			srv.ServeHTTP(httptest.NewRecorder(), r)
		}
		answer(w)
		return true
	})
}

// A create whose answer cannot be read is neither reported done nor sent
// twice: a committed create with a cut answer is found by reading back,
// and a proxy's page that never forwarded the create is a failure.
func TestUnreadableCreateAnswers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "elements.csv")
	if err := os.WriteFile(file, []byte(csvFile), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("committed, answer cut", func(t *testing.T) {
		srv := brokenCreates(t, true, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "200")
			fmt.Fprint(w, `{"correlationId":"abc`)
		})
		code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if st := srv.Stats(); st.Creates != 3 || len(srv.Elements()) != 3 {
			t.Fatalf("%d creates stored, %d elements; want 3 and 3", st.Creates, len(srv.Elements()))
		}
		for _, e := range srv.Journal() {
			if e.Operation == wbstest.OpCreate && e.Status != http.StatusOK {
				t.Fatalf("a create was sent again and refused: %+v", e)
			}
		}
	})
	t.Run("proxy page, not forwarded", func(t *testing.T) {
		srv := brokenCreates(t, false, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>Your session has expired</body></html>")
		})
		code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0")
		if code != cmdutil.ExitPartial || len(srv.Elements()) != 0 || !strings.Contains(errOut, "create: 3 failed") {
			t.Fatalf("exit %d, %d elements: %s", code, len(srv.Elements()), errOut)
		}
	})
}
