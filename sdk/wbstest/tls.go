package wbstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http/httptest"
	"time"
)

// NewTLSServer starts a server on a loopback port that serves https with
// the certificate and key in certPEM and keyPEM (see
// SelfSignedCertificate); call Close when done. Its URL is https. Refused
// handshakes go to the WithLogger logger, if any.
func NewTLSServer(certPEM, keyPEM []byte, opts ...Option) (*Server, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("wbstest: %w", err)
	}
	s := New(opts...)
	s.ts = httptest.NewUnstartedServer(s)
	s.ts.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if s.clientCAs != nil {
		if err := RequireClientCertificates(s.ts.TLS, s.clientCAs); err != nil {
			return nil, err
		}
	}
	s.ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	if s.logger != nil {
		s.ts.Config.ErrorLog = slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn)
	}
	s.ts.StartTLS()
	s.URL = s.ts.URL
	return s, nil
}

// SelfSignedCertificate makes a certificate for serving https on hosts
// (DNS names or IP addresses) with a new ECDSA P-256 key, valid from
// notBefore for validity. It signs itself and may sign nothing else, so
// a client that trusts it as an authority (certPEM is what a --ca-file or
// x509.CertPool.AppendCertsFromPEM takes) trusts this one server and no
// other. tls.X509KeyPair(certPEM, keyPEM) loads the pair.
func SelfSignedCertificate(hosts []string, notBefore time.Time, validity time.Duration) (certPEM, keyPEM []byte, err error) {
	if len(hosts) == 0 {
		return nil, nil, errors.New("wbstest: a certificate needs at least one host")
	}
	tmpl := &x509.Certificate{
		Subject:   pkix.Name{Organization: []string{"wbstest reference server"}, CommonName: hosts[0]},
		NotBefore: notBefore, NotAfter: notBefore.Add(validity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	certPEM, keyPEM, _, _, err = sign(tmpl, nil, nil)
	return certPEM, keyPEM, err
}

// WithClientCAs makes a server from NewTLSServer require a client
// certificate signed by one of the authorities in caPEM (mutual TLS).
func WithClientCAs(caPEM []byte) Option { return func(s *Server) { s.clientCAs = caPEM } }

// CertificateAuthority issues client certificates, for testing a client
// against a server that requires them (mutual TLS; see WithClientCAs and
// `wbsctl serve --client-ca`).
type CertificateAuthority struct {
	// CertPEM is the authority's certificate, for a server's client CAs.
	CertPEM []byte
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
}

// NewCertificateAuthority makes an authority with a new ECDSA P-256 key,
// valid for a day from a minute ago.
func NewCertificateAuthority(name string) (*CertificateAuthority, error) {
	now := time.Now()
	tmpl := &x509.Certificate{
		Subject:   pkix.Name{Organization: []string{"wbstest"}, CommonName: name},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
	}
	certPEM, _, cert, key, err := sign(tmpl, nil, nil)
	if err != nil {
		return nil, err
	}
	return &CertificateAuthority{CertPEM: certPEM, cert: cert, key: key}, nil
}

// Issue makes a client certificate for commonName, valid from notBefore
// for validity, signed by the authority. tls.X509KeyPair(certPEM, keyPEM)
// loads it.
func (ca *CertificateAuthority) Issue(commonName string, notBefore time.Time, validity time.Duration) (certPEM, keyPEM []byte, err error) {
	return ca.IssueWithUsage(commonName, notBefore, validity, x509.ExtKeyUsageClientAuth)
}

// IssueWithUsage is Issue with the extended key usages given, such as
// x509.ExtKeyUsageServerAuth alone: a certificate a server that checks
// the usage refuses as a client's.
func (ca *CertificateAuthority) IssueWithUsage(commonName string, notBefore time.Time, validity time.Duration, usage ...x509.ExtKeyUsage) (certPEM, keyPEM []byte, err error) {
	tmpl := &x509.Certificate{
		Subject:   pkix.Name{CommonName: commonName},
		NotBefore: notBefore, NotAfter: notBefore.Add(validity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: usage,
	}
	certPEM, keyPEM, _, _, err = sign(tmpl, ca.cert, ca.key)
	return certPEM, keyPEM, err
}

// sign makes a new ECDSA P-256 key and a random serial number for tmpl and
// signs it with parentKey, or with its own key when parent is nil.
func sign(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (certPEM, keyPEM []byte, cert *x509.Certificate, key *ecdsa.PrivateKey, err error) {
	key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("wbstest: generating a key: %w", err)
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128)); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("wbstest: generating a serial number: %w", err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("wbstest: signing the certificate: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("wbstest: encoding the key: %w", err)
	}
	cert, _ = x509.ParseCertificate(der)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), cert, key, nil
}

// RequireClientCertificates makes cfg require a client certificate that
// one of the authorities in caPEM signed, as a platform with mutual TLS
// does.
func RequireClientCertificates(cfg *tls.Config, caPEM []byte) error {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return errors.New("wbstest: no PEM certificate among the client authorities")
	}
	cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	return nil
}
