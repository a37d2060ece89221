package cmdutil

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wbsctl/wbsctl/internal/build"
	"github.com/wbsctl/wbsctl/sdk"
)

// Client builds the SDK client from the resolved credentials, with a
// command's own options (a limiter, say) after the global ones.
func (f *Factory) Client(extra ...sdk.Option) (*sdk.Client, error) {
	c, err := f.Resolve()
	if err != nil {
		return nil, err
	}
	return f.ClientFor(c, extra...)
}

// ClientFor builds the SDK client for c, with extra options after the
// global ones.
func (f *Factory) ClientFor(c *Credentials, extra ...sdk.Option) (*sdk.Client, error) {
	if c.BaseURL == "" {
		return nil, &AuthError{Err: fmt.Errorf("no base URL: run wbsctl auth login, or set --base-url or WBSCTL_BASE_URL")}
	}
	base, err := checkTransport(c.BaseURL, f.Global.InsecureHTTP)
	if err != nil {
		return nil, err
	}
	opts := []sdk.Option{sdk.WithUserAgent("wbsctl/" + build.Current().Version)}
	timeout := f.Global.RequestTimeout
	if timeout == 0 && f.Getenv("WBSCTL_REQUEST_TIMEOUT") != "" {
		d, err := time.ParseDuration(f.Getenv("WBSCTL_REQUEST_TIMEOUT"))
		if err != nil || d <= 0 {
			return nil, &UsageError{Err: fmt.Errorf("WBSCTL_REQUEST_TIMEOUT %q: want a positive duration such as 10s", f.Getenv("WBSCTL_REQUEST_TIMEOUT"))}
		}
		timeout = d
	}
	if timeout < 0 {
		return nil, &UsageError{Err: fmt.Errorf("--request-timeout %v: want a positive duration", timeout)}
	}
	if timeout > 0 {
		opts = append(opts, sdk.WithTimeout(timeout))
	}
	hc, err := f.httpClient(c, base)
	if err != nil {
		return nil, err
	}
	opts = append(opts, sdk.WithHTTPClient(hc))
	switch {
	case c.ClientID != "" && c.Secret != "":
		opts = append(opts, sdk.WithCredentials(c.ClientID, c.Secret))
		if cache, err := f.TokenCache(); err == nil {
			opts = append(opts, sdk.WithTokenCache(cache))
		}
	case c.Token != "":
		opts = append(opts, sdk.WithAccessToken(c.Token))
	default:
		return nil, &AuthError{Err: fmt.Errorf("no credentials: run wbsctl auth login, or set WBSCTL_CLIENT_ID and WBSCTL_CLIENT_SECRET (or WBSCTL_TOKEN)")}
	}
	if f.Global.Debug || f.Getenv("WBSCTL_DEBUG") == "1" {
		opts = append(opts, sdk.WithLogger(slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	opts = append(opts, f.ClientOptions...)
	// A command's own options come last: its limiter is the one used.
	opts = append(opts, extra...)
	return sdk.NewClient(c.BaseURL, opts...)
}

// httpClient is the HTTP client of c's SDK client: the Factory's
// Transport, or sdk.DefaultTransport trusting --ca-file and presenting
// --client-cert, below a count of what it sends. baseURL is c's, parsed.
func (f *Factory) httpClient(c *Credentials, baseURL *url.URL) (*http.Client, error) {
	base := f.Transport
	if base == nil {
		tr := sdk.DefaultTransport()
		if c.CAFile != "" {
			pool, err := certPoolWith(c.CAFile)
			if err != nil {
				return nil, err
			}
			tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		}
		if c.ClientCert != "" || c.ClientKey != "" {
			cert, err := loadClientCertificate(c.ClientCert, c.ClientKey, f.IO.ErrOut)
			if err != nil {
				return nil, err
			}
			if tr.TLSClientConfig == nil {
				tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
			}
			// Presented whatever authorities the platform names as
			// acceptable (crypto/tls would otherwise send none), so
			// that a refusal says why.
			tr.TLSClientConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
		}
		base = tr
	}
	return &http.Client{Transport: countingTransport{base: base, count: &f.requests, tokenPath: tokenPath(baseURL.Path)}}, nil
}

// Requests counts the HTTP requests the Factory's clients have sent.
func (f *Factory) Requests() RequestCounts { return f.requests.counts() }

// checkTransport parses the base URL and refuses to send credentials
// over plain HTTP to a host other than loopback, unless the user asked
// for it.
func checkTransport(baseURL string, insecure bool) (*url.URL, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &UsageError{Err: fmt.Errorf("base URL %q is not an absolute http or https URL", baseURL)}
	}
	if u.Scheme == "https" || insecure {
		return u, nil
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || strings.EqualFold(host, "localhost") {
		return u, nil
	}
	return nil, &UsageError{Err: fmt.Errorf("refusing to send credentials over plain HTTP to %s: use https, or --insecure-http", host)}
}
