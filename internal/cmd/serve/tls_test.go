package serve_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmd/serve"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

const clientID, secret = "integrationhub-5", "tls-secret"

// start runs `wbsctl serve` with opts until the test ends and returns its
// base URL and the lines it printed before it was ready.
func start(t *testing.T, opts *serve.Options) (string, []string) {
	t.Helper()
	io, _, out, _ := iostreams.Test()
	opts.IO, opts.Addr, opts.OrgUpdate, opts.TokenLifetime = io, "127.0.0.1:0", "merge", time.Hour
	opts.Credentials = []string{clientID + "=" + secret}
	ready := make(chan string, 1)
	opts.Ready = func(u string) { ready <- u }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve.Run(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	select {
	case base := <-ready:
		return base, strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	case err := <-done:
		t.Fatal(err)
	}
	return "", nil
}

func pool(t *testing.T, pemFile string) *x509.CertPool {
	t.Helper()
	raw, err := os.ReadFile(pemFile)
	if err != nil {
		t.Fatal(err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(raw) {
		t.Fatalf("no certificate in %s", pemFile)
	}
	return p
}

func createOver(t *testing.T, base string, roots *x509.CertPool, code string) error {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	c, err := sdk.NewClient(base, sdk.WithCredentials(clientID, secret), sdk.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: code})
	return err
}

func TestServeTLSMakesACertificateToTrust(t *testing.T) {
	base, lines := start(t, &serve.Options{TLS: true})
	if !strings.HasPrefix(base, "https://127.0.0.1:") || lines[0] != base {
		t.Fatalf("base URL %q, first line %q", base, lines[0])
	}
	caFile, ok := strings.CutPrefix(lines[1], "ca file:       ")
	if !ok || !filepath.IsAbs(caFile) {
		t.Fatalf("second line %q, want the ca file", lines[1])
	}
	if err := createOver(t, base, pool(t, caFile), "TLS-1"); err != nil {
		t.Fatalf("with the ca file: %v", err)
	}
	if err := createOver(t, base, x509.NewCertPool(), "TLS-2"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("without it: %v", err)
	}
	raw, _ := os.ReadFile(caFile)
	block, _ := pem.Decode(raw)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	key, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || key.Curve != elliptic.P256() {
		t.Fatalf("key %T, want ECDSA P-256", cert.PublicKey)
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		if err := cert.VerifyHostname(h); err != nil {
			t.Errorf("not valid for %s: %v", h, err)
		}
	}
	if !cert.NotAfter.Before(time.Now().Add(7 * 24 * time.Hour)) {
		t.Errorf("valid until %s: a certificate made at start should not outlive the week", cert.NotAfter)
	}
}

func TestServeTLSCAOutAndOwnPair(t *testing.T) {
	dir := t.TempDir()
	caOut := filepath.Join(dir, "ca.pem")
	// A symbolic link planted at the path is replaced, never followed.
	victim := filepath.Join(dir, "victim")
	if err := os.Symlink(victim, caOut); err != nil {
		t.Fatal(err)
	}
	base, lines := start(t, &serve.Options{TLS: true, TLSCAOut: caOut})
	if _, err := os.Lstat(victim); err == nil {
		t.Fatal("--tls-ca-out followed a symbolic link")
	}
	if lines[1] != "ca file:       "+caOut {
		t.Fatalf("second line %q", lines[1])
	}
	if err := createOver(t, base, pool(t, caOut), "OUT-1"); err != nil {
		t.Fatal(err)
	}

	certPEM, keyPEM, err := wbstest.SelfSignedCertificate([]string{"127.0.0.1"}, time.Now().Add(-time.Minute), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "own.crt"), filepath.Join(dir, "own.key")
	os.WriteFile(certFile, certPEM, 0o600)
	os.WriteFile(keyFile, keyPEM, 0o600)
	base, lines = start(t, &serve.Options{TLSCert: certFile, TLSKey: keyFile})
	if !strings.HasPrefix(base, "https://") || len(lines) != 1 {
		t.Fatalf("own pair: %q", lines)
	}
	if err := createOver(t, base, pool(t, certFile), "OWN-1"); err != nil {
		t.Fatal(err)
	}
}

func TestServeTLSFlagErrorsAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM, _ := wbstest.SelfSignedCertificate([]string{"localhost"}, time.Now(), time.Hour)
	cert, key, other := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem"), filepath.Join(dir, "other.pem")
	os.WriteFile(cert, certPEM, 0o600)
	os.WriteFile(key, keyPEM, 0o600)
	_, otherKey, _ := wbstest.SelfSignedCertificate([]string{"localhost"}, time.Now(), time.Hour)
	os.WriteFile(other, otherKey, 0o600)
	missing := filepath.Join(dir, "missing.pem")
	tests := []struct {
		name string
		opts serve.Options
		flag string
	}{
		{"cert without key", serve.Options{TLSCert: cert}, "--tls-key"},
		{"key without cert", serve.Options{TLSKey: key}, "--tls-cert"},
		{"both ways", serve.Options{TLS: true, TLSCert: cert, TLSKey: key}, "--tls"},
		{"unreadable cert", serve.Options{TLSCert: missing, TLSKey: key}, "--tls-cert"},
		{"unreadable key", serve.Options{TLSCert: cert, TLSKey: missing}, "--tls-key"},
		{"key of another cert", serve.Options{TLSCert: cert, TLSKey: other}, "--tls-key"},
		{"ca out without tls", serve.Options{TLSCAOut: filepath.Join(dir, "ca.pem")}, "--tls-ca-out"},
		{"ca out unwritable", serve.Options{TLS: true, TLSCAOut: filepath.Join(missing, "ca.pem")}, "--tls-ca-out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			io, _, out, _ := iostreams.Test()
			tt.opts.IO, tt.opts.Addr, tt.opts.OrgUpdate = io, "127.0.0.1:0", "merge"
			err := serve.Run(context.Background(), &tt.opts)
			var usage *cmdutil.UsageError
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.flag) {
				t.Fatalf("error %v, want a usage error naming %s", err, tt.flag)
			}
			if out.Len() != 0 {
				t.Fatalf("printed %q before failing", out.String())
			}
		})
	}
}

// The CLI against `serve --tls`: trusted with --ca-file, refused without.
func TestServeTLSWithTheCLI(t *testing.T) {
	base, lines := start(t, &serve.Options{TLS: true})
	caFile := strings.TrimPrefix(lines[1], "ca file:       ")
	srv := &wbstest.Server{URL: base, ClientID: clientID, ClientSecret: secret}
	if r := (cmdtest.Run{}).Do(t, srv, "--ca-file", caFile, "element", "create", "CLI-1"); r.Code != 0 {
		t.Fatalf("create: %+v", r)
	}
	if r := (cmdtest.Run{}).Do(t, srv, "--ca-file", caFile, "element", "list", "-o", "json"); r.Code != 0 || !strings.Contains(r.Out, "CLI-1") {
		t.Fatalf("list: %+v", r)
	}
	r := (cmdtest.Run{}).Do(t, srv, "element", "list")
	if r.Code != cmdutil.ExitError || !strings.Contains(r.ErrOut, "certificate") || !strings.Contains(r.ErrOut, "--ca-file") {
		t.Fatalf("without --ca-file: %+v", r)
	}
}
