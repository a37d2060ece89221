//go:build unix

package element_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// SIGINT while a create is on the wire ends the command with exit 130 and
// says that the create may have been carried out and is to be checked:
// here it was.
func TestSignalDuringACreateSaysTheOutcomeIsUnknown(t *testing.T) {
	srv := wbstest.New()
	committed := make(chan struct{})
	cmdtest.Behind(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/wbs-elements" {
			return false
		}
		body, _ := io.ReadAll(r.Body)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		select { // the client gives up: the create commits all the same
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		late := r.Clone(t.Context())
		late.Body = io.NopCloser(bytes.NewReader(body))
		srv.ServeHTTP(httptest.NewRecorder(), late)
		close(committed)
		return true
	})
	res := run(t, srv, false, "", "element", "create", "P-1", "--description", "Site works")
	<-committed
	if _, created := srv.Element("P-1"); !created {
		t.Fatal("the create did not reach the platform")
	}
	if res.Code != 130 || !strings.Contains(res.ErrOut, "interrupted by SIGINT after the request was sent") ||
		!strings.Contains(res.ErrOut, "check the platform's state") {
		t.Fatalf("exit %d: %s", res.Code, res.ErrOut)
	}
}
