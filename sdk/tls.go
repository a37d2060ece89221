package sdk

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"
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
