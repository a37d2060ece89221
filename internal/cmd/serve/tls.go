package serve

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// certificateValidity is short: the certificate lives as long as the
// process that made it, and a copy of it left behind soon stops working.
const certificateValidity = 24 * time.Hour

// tlsSetup reads the TLS flags: no TLS, a certificate made now (whose PEM
// it writes to caFile), or the user's own pair. cleanup removes what it
// wrote to a temporary directory.
func tlsSetup(opts *Options) (cfg *tls.Config, caFile string, cleanup func(), err error) {
	cfg, caFile, cleanup, err = serverCertificate(opts)
	if err != nil || opts.ClientCA == "" {
		return cfg, caFile, cleanup, err
	}
	if cfg == nil {
		return nil, "", cleanup, &cmdutil.UsageError{Err: fmt.Errorf("--client-ca needs --tls or --tls-cert: client certificates travel in TLS")}
	}
	caPEM, err := os.ReadFile(opts.ClientCA)
	if err == nil {
		err = wbstest.RequireClientCertificates(cfg, caPEM)
	}
	if err != nil {
		cleanup()
		return nil, "", func() {}, &cmdutil.UsageError{Err: fmt.Errorf("--client-ca %s: %w", opts.ClientCA, err)}
	}
	return cfg, caFile, cleanup, nil
}

// serverCertificate reads the flags of the server's own certificate.
func serverCertificate(opts *Options) (cfg *tls.Config, caFile string, cleanup func(), err error) {
	cleanup = func() {}
	usage := func(format string, a ...any) error { return &cmdutil.UsageError{Err: fmt.Errorf(format, a...)} }
	switch {
	case opts.TLS && (opts.TLSCert != "" || opts.TLSKey != ""):
		return nil, "", cleanup, usage("--tls makes a certificate and --tls-cert/--tls-key bring one: give one or the other")
	case opts.TLSCert != "" && opts.TLSKey == "":
		return nil, "", cleanup, usage("--tls-cert needs --tls-key")
	case opts.TLSKey != "" && opts.TLSCert == "":
		return nil, "", cleanup, usage("--tls-key needs --tls-cert")
	case opts.TLSCAOut != "" && !opts.TLS:
		return nil, "", cleanup, usage("--tls-ca-out is for the certificate of --tls")
	case opts.TLSCert != "":
		certPEM, err := os.ReadFile(opts.TLSCert)
		if err != nil {
			return nil, "", cleanup, usage("--tls-cert: %w", err)
		}
		keyPEM, err := os.ReadFile(opts.TLSKey)
		if err != nil {
			return nil, "", cleanup, usage("--tls-key: %w", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, "", cleanup, usage("--tls-cert %s, --tls-key %s: %w", opts.TLSCert, opts.TLSKey, err)
		}
		return serverTLSConfig(pair), "", cleanup, nil
	case !opts.TLS:
		return nil, "", cleanup, nil
	}
	certPEM, keyPEM, err := wbstest.SelfSignedCertificate(certificateHosts(opts.Addr), time.Now().Add(-time.Minute), certificateValidity)
	if err != nil {
		return nil, "", cleanup, fmt.Errorf("serve: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, "", cleanup, fmt.Errorf("serve: %w", err)
	}
	caFile = opts.TLSCAOut
	if caFile == "" {
		dir, err := os.MkdirTemp("", "wbsctl-serve-")
		if err != nil {
			return nil, "", cleanup, fmt.Errorf("serve: %w", err)
		}
		cleanup = func() { _ = os.RemoveAll(dir) }
		caFile = filepath.Join(dir, "ca.pem")
	}
	// Written aside and renamed into place: a symbolic link planted at
	// caFile is replaced, never followed.
	if err := atomicfile.Write(caFile, certPEM, 0o644); err != nil {
		cleanup()
		if opts.TLSCAOut != "" {
			err = &cmdutil.UsageError{Err: fmt.Errorf("--tls-ca-out: %w", err)}
		}
		return nil, "", func() {}, err
	}
	if abs, err := filepath.Abs(caFile); err == nil {
		caFile = abs
	}
	return serverTLSConfig(pair), caFile, cleanup, nil
}

func serverTLSConfig(pair tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
}

// certificateHosts are the names a client of a server on addr may use:
// loopback, and the host of addr, or this machine's name when addr
// listens on every interface.
func certificateHosts(addr string) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err == nil && (host == "" || ip != nil && ip.IsUnspecified()) {
		host, _ = os.Hostname()
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	if host != "" && !slices.Contains(hosts, host) {
		hosts = append(hosts, host)
	}
	return hosts
}
