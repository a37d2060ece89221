package sdk_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// startTLS serves a reference server over https with a certificate for
// hosts, valid from notBefore for a day, and returns it with the
// certificate's PEM.
func startTLS(t *testing.T, hosts []string, notBefore time.Time) (*wbstest.Server, []byte) {
	t.Helper()
	certPEM, keyPEM, err := wbstest.SelfSignedCertificate(hosts, notBefore, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := wbstest.NewTLSServer(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, certPEM
}

// trusting is an HTTP client that trusts the authorities in caPEM and
// counts the connections it opens.
func trusting(t *testing.T, caPEM []byte, dials *atomic.Int32) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("no certificate in the PEM")
	}
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func TestOperationsOverTLSWithATrustedCA(t *testing.T) {
	srv, caPEM := startTLS(t, []string{"127.0.0.1"}, time.Now().Add(-time.Minute))
	var dials atomic.Int32
	c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithHTTPClient(trusting(t, caPEM, &dials)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, code := range []string{"TLS-1", "TLS-2", "TLS-3"} {
		if _, err := c.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: code}); err != nil {
			t.Fatal(err)
		}
	}
	// Pages of 2: the second page is fetched from the https next URL.
	n := 0
	for _, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 || len(srv.Elements()) != 3 {
		t.Fatalf("listed %d of %d", n, len(srv.Elements()))
	}
}

func TestCertificateErrorsAreRefusedWithoutRetry(t *testing.T) {
	now := time.Now()
	_, otherCA := startTLS(t, []string{"127.0.0.1"}, now)
	tests := []struct {
		name      string
		hosts     []string
		notBefore time.Time
		trust     func(own []byte) []byte
		want      func(error) bool
	}{
		{"unknown authority", []string{"127.0.0.1"}, now.Add(-time.Minute), func([]byte) []byte { return otherCA },
			func(err error) bool { var e x509.UnknownAuthorityError; return errors.As(err, &e) }},
		{"another host name", []string{"other.invalid"}, now.Add(-time.Minute), func(own []byte) []byte { return own },
			func(err error) bool { var e x509.HostnameError; return errors.As(err, &e) }},
		{"expired", []string{"127.0.0.1"}, now.Add(-48 * time.Hour), func(own []byte) []byte { return own },
			func(err error) bool {
				var e x509.CertificateInvalidError
				return errors.As(err, &e) && e.Reason == x509.Expired
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, own := startTLS(t, tt.hosts, tt.notBefore)
			var dials atomic.Int32
			c, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret),
				sdk.WithHTTPClient(trusting(t, tt.trust(own), &dials)),
				sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.WBSElements.List(context.Background(), nil)
			if err == nil || !tt.want(err) || !strings.Contains(err.Error(), "certificate") {
				t.Fatalf("error %v", err)
			}
			if n := dials.Load(); n != 1 {
				t.Fatalf("%d connections: a certificate error was retried", n)
			}
			if j := srv.Journal(); len(j) != 0 {
				t.Fatalf("the server saw %d requests", len(j))
			}
		})
	}
}
