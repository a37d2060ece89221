package sdk_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Under TLS 1.3 a platform refuses a missing client certificate after the
// client has begun to write its request: a large body then breaks the
// connection before the refusal is read. The error is still the typed
// refusal, with the reason, and the request is not tried again.
func TestClientCertificateRefusalUnderAWrite(t *testing.T) {
	certPEM, keyPEM, err := wbstest.SelfSignedCertificate([]string{"127.0.0.1"}, time.Now().Add(-time.Minute), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	clients, err := wbstest.NewCertificateAuthority("clients")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := wbstest.NewTLSServer(certPEM, keyPEM, wbstest.WithClientCAs(clients.CertPEM))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := bytes.Repeat([]byte(" "), 8<<20)
	body[0] = '{'
	body[len(body)-1] = '}'
	for _, wrapped := range []bool{false, true} {
		var dials atomic.Int32
		hc := trusting(t, certPEM, &dials)
		if wrapped {
			// A transport of the caller's, over the *http.Transport it
			// names with Unwrap, as wbsctl's request count is.
			hc.Transport = unwrapping{hc.Transport}
		}
		c, err := sdk.NewClient(srv.URL, sdk.WithAccessToken("a-token"), sdk.WithHTTPClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Do(context.Background(), &sdk.RawRequest{Method: http.MethodPost, Path: "/v1/anything", Body: body, Safe: true})
		var te *sdk.TLSError
		if !errors.As(err, &te) || te.Reason != sdk.TLSClientCertificateRequired || !te.ClientCertificate() {
			t.Fatalf("wrapped %v: got %v (%T), want the platform's refusal of a missing client certificate", wrapped, err, err)
		}
		if n := dials.Load(); n > 1 {
			t.Errorf("wrapped %v: %d connections: the refusal was tried again", wrapped, n)
		}
	}
}

// unwrapping sends through the round tripper it names with Unwrap.
type unwrapping struct{ base http.RoundTripper }

func (u unwrapping) RoundTrip(r *http.Request) (*http.Response, error) { return u.base.RoundTrip(r) }
func (u unwrapping) Unwrap() http.RoundTripper                         { return u.base }
