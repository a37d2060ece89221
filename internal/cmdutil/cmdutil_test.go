package cmdutil

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/config"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
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
	if _, err := loadClientCertificate("f.pem", "", io.ErrOut); !errors.As(err, new(*UsageError)) {
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
		if _, err := checkTransport(tt.url, tt.insecure); (err == nil) != tt.ok {
			t.Errorf("checkTransport(%q, %v) = %v", tt.url, tt.insecure, err)
		}
	}
}

// A key file others can read is used with a warning, as ssh warns; an
// encrypted key is refused with a message that says so and how to use it.
func TestClientKeyFiles(t *testing.T) {
	dir := t.TempDir()
	ca, err := wbstest.NewCertificateAuthority("clients")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, _ := ca.Issue("ci", time.Now().Add(-time.Minute), time.Hour)
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
		return p
	}
	cert := write("c.pem", certPEM, 0o644)
	for _, tt := range []struct {
		mode os.FileMode
		warn bool
	}{{0o600, false}, {0o640, true}, {0o644, true}} {
		var warnings bytes.Buffer
		key := write("k.pem", keyPEM, tt.mode)
		if _, err := loadClientCertificate(cert, key, &warnings); err != nil {
			t.Fatalf("mode %04o: %v", tt.mode, err)
		}
		if got := strings.Contains(warnings.String(), "can be read by others") && strings.Contains(warnings.String(), "chmod 600"); got != tt.warn {
			t.Errorf("mode %04o: warning %q", tt.mode, warnings.String())
		}
	}
	encrypted := write("enc.pem", pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte("ciphertext")}), 0o600)
	_, err = loadClientCertificate(cert, encrypted, io.Discard)
	if !errors.As(err, new(*UsageError)) || !strings.Contains(err.Error(), "is encrypted") || !strings.Contains(err.Error(), "openssl pkey") {
		t.Errorf("an encrypted key: %v", err)
	}
}

// What wbsctl was doing and what the platform answered are one line, not
// a line of its own before the problem.
func TestPrintErrorPutsTheContextOnTheProblemsLine(t *testing.T) {
	apiErr := &sdk.APIError{StatusCode: 401, Method: "GET", Path: "/v1/wbs-elements",
		Problem: &sdk.Problem{Title: "Unauthorized", Status: 401, Detail: "the token expired"}}
	var b bytes.Buffer
	PrintError(&b, fmt.Errorf("list WBS elements: %w", apiErr), false)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if lines[0] != "error: list WBS elements: GET /v1/wbs-elements: Unauthorized" || !strings.Contains(lines[1], "the token expired") {
		t.Fatalf("%q", lines)
	}
}
