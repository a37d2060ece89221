package cmdutil

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/wbsctl/wbsctl/sdk"
)

// loadClientCertificate reads a client certificate and its key. It warns
// on w, as ssh does, of a key file others can read, and of a certificate
// whose extended key usage does not allow client authentication, which a
// platform that checks it refuses.
func loadClientCertificate(certFile, keyFile string, w io.Writer) (tls.Certificate, error) {
	if certFile == "" || keyFile == "" {
		return tls.Certificate{}, &UsageError{Err: errors.New("a client certificate needs both --client-cert and --client-key (or WBSCTL_CLIENT_CERT and WBSCTL_CLIENT_KEY)")}
	}
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, &UsageError{Err: fmt.Errorf("--client-cert: %w", err)}
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, &UsageError{Err: fmt.Errorf("--client-key: %w", err)}
	}
	if fi, err := os.Stat(keyFile); err == nil && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(w, "warning: the key file %s can be read by others (mode %04o): only you should, with chmod 600 %s\n", keyFile, fi.Mode().Perm(), keyFile)
	}
	if encryptedKey(keyPEM) {
		return tls.Certificate{}, &UsageError{Err: fmt.Errorf("--client-key %s is encrypted with a passphrase, which wbsctl does not ask for: "+
			"write the key decrypted to a file only you can read (openssl pkey -in %s -out client.key, then chmod 600 client.key) and give that file", keyFile, keyFile)}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, &UsageError{Err: fmt.Errorf("--client-cert %s, --client-key %s: %w", certFile, keyFile, err)}
	}
	if leaf := cert.Leaf; leaf != nil && !allowsClientAuth(leaf) {
		fmt.Fprintf(w, "warning: the certificate %s does not allow client authentication (its extended key usage lacks clientAuth): a platform that checks the usage refuses it\n", certFile)
	}
	return cert, nil
}

// encryptedKey reports whether the first PEM block of b is an encrypted
// private key: PKCS #8 or the legacy Proc-Type header of OpenSSL.
func encryptedKey(b []byte) bool {
	block, _ := pem.Decode(b)
	return block != nil && (block.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED"))
}

// allowsClientAuth reports whether cert may be used for client
// authentication: an extended key usage that is absent, any, or names it.
func allowsClientAuth(cert *x509.Certificate) bool {
	if len(cert.ExtKeyUsage) == 0 && len(cert.UnknownExtKeyUsage) == 0 {
		return true
	}
	return slices.ContainsFunc(cert.ExtKeyUsage, func(u x509.ExtKeyUsage) bool {
		return u == x509.ExtKeyUsageClientAuth || u == x509.ExtKeyUsageAny
	})
}

// certificateHint says what to do about a failed TLS handshake. There is
// no way around the checks: the answer is to trust the right authority,
// to reach the right host, or to give the certificate the platform wants.
func certificateHint(err error) string {
	var te *sdk.TLSError
	if !errors.As(err, &te) {
		return ""
	}
	switch te.Reason {
	case sdk.TLSUnknownAuthority:
		return "the server's certificate is signed by an authority this system does not trust; if it is your organization's (or wbsctl serve --tls's), pass its PEM file with --ca-file"
	case sdk.TLSHostname:
		return "the server's certificate is for another host name; check the base URL"
	case sdk.TLSExpired:
		return "the server's certificate has expired or is not valid yet; check this system's clock, or renew the server's certificate"
	case sdk.TLSClientCertificateRequired:
		return "the platform requires a client certificate (mutual TLS): give --client-cert and --client-key"
	case sdk.TLSClientCertificateUnknownAuthority:
		return "the platform does not trust the authority that signed the client certificate of --client-cert"
	case sdk.TLSClientCertificateExpired:
		return "the platform refused the client certificate of --client-cert: it has expired or is not valid yet"
	case sdk.TLSClientCertificateRefused:
		return "the platform refused the client certificate of --client-cert: check that it is the one the platform expects and that its extended key usage allows client authentication (clientAuth)"
	}
	return ""
}

// certPoolWith is the system's authorities and those of the PEM file.
func certPoolWith(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("--ca-file: %w", err)}
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, &UsageError{Err: fmt.Errorf("--ca-file %s: no PEM certificate in it", file)}
	}
	return pool, nil
}
