package cmdutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/config"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk"
)

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitError},
		{&UsageError{Err: errors.New("x")}, ExitUsage},
		{fmt.Errorf("wrapped: %w", &AuthError{Err: errors.New("x")}), ExitAuth},
		{&sdk.APIError{StatusCode: 401}, ExitAuth},
		{&sdk.APIError{StatusCode: 403}, ExitAuth},
		{&sdk.APIError{StatusCode: 404}, ExitNotFound},
		{&sdk.APIError{StatusCode: 400}, ExitValidation},
		{&sdk.APIError{StatusCode: 500}, ExitError},
		{&PartialError{Failed: 1, Total: 2}, ExitPartial},
		{&PendingError{}, ExitPending},
		{&PlanStaleError{Err: errors.New("x")}, ExitPlanStale},
		{fmt.Errorf("%w while planning", ErrInterrupted), ExitInterrupted},
	} {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestReadFileOrStdin(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("0123456789"), 0o600)
	if b, err := ReadFileOrStdin(nil, file, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := ReadFileOrStdin(nil, file, 9); err == nil || !strings.Contains(err.Error(), "larger than 9 bytes") {
		t.Fatalf("over the bound: %v", err)
	}
	if b, err := ReadFileOrStdin(strings.NewReader("stdin"), "-", 10); err != nil || string(b) != "stdin" {
		t.Fatalf("stdin: %q %v", b, err)
	}
	if _, err := ReadFileOrStdin(nil, filepath.Join(t.TempDir(), "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}

// A client certificate comes as a pair from one place: the flags, else the
// environment, else the profile.
func TestClientCertificateFiles(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	f := New(io)
	env := map[string]string{}
	f.Getenv = func(k string) string { return env[k] }
	prof := config.Profile{ClientCert: "p.pem", ClientKey: "p.key"}
	if c, k := f.clientCertificateFiles(prof); c != "p.pem" || k != "p.key" {
		t.Fatalf("profile: %s %s", c, k)
	}
	env["WBSCTL_CLIENT_CERT"], env["WBSCTL_CLIENT_KEY"] = "e.pem", "e.key"
	if c, k := f.clientCertificateFiles(prof); c != "e.pem" || k != "e.key" {
		t.Fatalf("environment: %s %s", c, k)
	}
	f.Global.ClientCert = "f.pem"
	if c, k := f.clientCertificateFiles(prof); c != "f.pem" || k != "" {
		t.Fatalf("flags: %s %s (a pair from one place)", c, k)
	}
	if _, err := loadClientCertificate("f.pem", ""); !errors.As(err, new(*UsageError)) {
		t.Fatalf("half a pair: %v", err)
	}
}

func TestCheckTransport(t *testing.T) {
	for _, tt := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"https://platform.example", false, true},
		{"http://127.0.0.1:8080", false, true},
		{"http://localhost:8080", false, true},
		{"http://platform.example", false, false},
		{"http://platform.example", true, true},
		{"ftp://platform.example", true, false},
		{"platform.example", false, false},
	} {
		if err := checkTransport(tt.url, tt.insecure); (err == nil) != tt.ok {
			t.Errorf("checkTransport(%q, %v) = %v", tt.url, tt.insecure, err)
		}
	}
}
