package sdk

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// TLSReason says why a TLS handshake with the platform failed.
type TLSReason string

// The reasons of a *TLSError. The first three are the client's refusal of
// the server's certificate, the others the platform's refusal of the
// client's (mutual TLS).
const (
	// TLSUnknownAuthority: the server's certificate is signed by an
	// authority the client does not trust.
	TLSUnknownAuthority TLSReason = "unknown authority"
	// TLSHostname: the server's certificate is for another host name.
	TLSHostname TLSReason = "host name mismatch"
	// TLSExpired: the server's certificate has expired or is not valid
	// yet.
	TLSExpired TLSReason = "expired certificate"
	// TLSServerCertificateInvalid: the server's certificate fails
	// verification for another reason.
	TLSServerCertificateInvalid TLSReason = "invalid certificate"
	// TLSClientCertificateRequired: the platform requires a client
	// certificate and none was given.
	TLSClientCertificateRequired TLSReason = "client certificate required"
	// TLSClientCertificateUnknownAuthority: the platform does not trust
	// the authority that signed the client certificate.
	TLSClientCertificateUnknownAuthority TLSReason = "client certificate of an unknown authority"
	// TLSClientCertificateExpired: the platform refused the client
	// certificate as expired or not valid yet.
	TLSClientCertificateExpired TLSReason = "client certificate expired"
	// TLSClientCertificateRefused: the platform refused the client
	// certificate for another reason (a bad or unsupported certificate).
	TLSClientCertificateRefused TLSReason = "client certificate refused"
)

// TLSError is a TLS handshake with the platform that failed for a reason
// a retry cannot mend. The platform never received the request, so the
// outcome of a create is known: nothing was made.
type TLSError struct {
	Reason TLSReason
	Err    error
}

func (e *TLSError) Error() string { return e.Err.Error() }
func (e *TLSError) Unwrap() error { return e.Err }

// ClientCertificate reports whether the platform refused the client's
// certificate, or its absence, rather than the client the server's.
func (e *TLSError) ClientCertificate() bool {
	switch e.Reason {
	case TLSClientCertificateRequired, TLSClientCertificateUnknownAuthority, TLSClientCertificateExpired, TLSClientCertificateRefused:
		return true
	}
	return false
}

// asTLSError returns err as a *TLSError where it is a failed handshake,
// else nil.
func asTLSError(err error) *TLSError {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &unknown):
		return &TLSError{Reason: TLSUnknownAuthority, Err: err}
	case errors.As(err, &hostname):
		return &TLSError{Reason: TLSHostname, Err: err}
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return &TLSError{Reason: TLSExpired, Err: err}
	case errors.As(err, &invalid), errors.As(err, &verify):
		return &TLSError{Reason: TLSServerCertificateInvalid, Err: err}
	}
	// The platform's refusals arrive as TLS alerts, whose type crypto/tls
	// does not export: only here is their text read.
	msg := err.Error()
	for _, a := range []struct {
		alert  string
		reason TLSReason
	}{
		{"tls: certificate required", TLSClientCertificateRequired},
		{"tls: unknown certificate authority", TLSClientCertificateUnknownAuthority},
		{"tls: expired certificate", TLSClientCertificateExpired},
		{"tls: bad certificate", TLSClientCertificateRefused},
		{"tls: unsupported certificate", TLSClientCertificateRefused},
	} {
		if strings.Contains(msg, "remote error: "+a.alert) {
			return &TLSError{Reason: a.reason, Err: err}
		}
	}
	return nil
}

// A platform that requires a client certificate checks it, under TLS 1.3,
// after the client has finished its side of the handshake and begun to
// write its request. Its refusal, an alert, then often arrives after the
// connection has broken under that write, and net/http reports the broken
// pipe or the reset instead. handshakeRefusal asks again, on a connection
// of its own that writes nothing: the alert is then what it reads.

// handshakeRefusal returns the *TLSError that explains a transport error
// err of a request to u, where err is a connection broken under a write
// (EPIPE, ECONNRESET, closed when the alert was read, or an HTTP/2
// connection not established) over https and a
// new handshake with the same configuration is refused by an alert; else
// nil. It costs one connection, only after such a failure.
func (c *Client) handshakeRefusal(ctx context.Context, u *url.URL, err error) *TLSError {
	// Over HTTP/2 the same break can surface as the connection not
	// established, an error net/http does not export.
	broken := errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "http2: client conn could not be established")
	if u.Scheme != "https" || !broken {
		return nil
	}
	tr, ok := baseTransport(c.hc.Transport)
	if !ok {
		return nil
	}
	cfg := &tls.Config{}
	if tr.TLSClientConfig != nil {
		cfg = tr.TLSClientConfig.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = u.Hostname()
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d := &tls.Dialer{Config: cfg}
	conn, derr := d.DialContext(ctx, "tcp", host)
	if derr != nil {
		return asTLSError(derr)
	}
	defer conn.Close()
	// A refusal follows the handshake within a round trip; a connection
	// that stays silent for a second was not refused.
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	var one [1]byte
	_, rerr := conn.Read(one[:])
	if rerr == nil {
		return nil
	}
	te := asTLSError(rerr)
	if te != nil {
		te.Err = fmt.Errorf("%w (the request failed with: %v)", rerr, err)
	}
	return te
}

// baseTransport is the *http.Transport that rt sends through: rt itself,
// http.DefaultTransport for nil, or the one under wrappers that name the
// round tripper they wrap with an Unwrap() http.RoundTripper method.
func baseTransport(rt http.RoundTripper) (*http.Transport, bool) {
	for range 16 {
		switch t := rt.(type) {
		case nil:
			rt = http.DefaultTransport
		case *http.Transport:
			return t, true
		case interface{ Unwrap() http.RoundTripper }:
			rt = t.Unwrap()
		default:
			return nil, false
		}
	}
	return nil, false
}
