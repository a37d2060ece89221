// Package cmdutil holds what every wbsctl command shares: the streams, the
// global flags, building the SDK client from the resolved credentials,
// printing results and errors, and the exit codes.
package cmdutil

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/build"
	"github.com/wbsctl/wbsctl/internal/config"
	"github.com/wbsctl/wbsctl/internal/credentials"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk"
)

// Factory gives commands their streams, settings and client.
type Factory struct {
	IO *iostreams.IOStreams
	// Getenv reads the environment; tests replace it.
	Getenv func(string) string
	// Global holds the persistent flags of the root command.
	Global GlobalOptions
	// ClientOptions are added to every client (tests add a fast retry
	// policy). Commands add their own through Client's arguments, never
	// here: the Factory is shared.
	ClientOptions []sdk.Option
	// Keyring is where profiles keep their secrets; nil means the OS
	// keyring under WBSCTL_KEYRING_TIMEOUT (3 s by default).
	Keyring credentials.Store
}

// GlobalOptions are the flags every command takes.
type GlobalOptions struct {
	Profile      string
	BaseURL      string
	ClientID     string
	Output       string
	NoHeaders    bool
	JQ           string
	Template     string
	Debug        bool
	InsecureHTTP bool
	CAFile       string
	// ClientCert and ClientKey are a client certificate and its key (PEM
	// files) for a platform that requires mutual TLS.
	ClientCert, ClientKey string
	// RequestTimeout bounds each HTTP attempt; 0 is the SDK's default.
	RequestTimeout time.Duration
}

// New returns a Factory over the process's streams and environment.
func New(io *iostreams.IOStreams) *Factory {
	return &Factory{IO: io, Getenv: os.Getenv}
}

// AddGlobalFlags adds the persistent flags to the root command.
func (f *Factory) AddGlobalFlags(cmd *cobra.Command) {
	fl := cmd.PersistentFlags()
	g := &f.Global
	fl.StringVar(&g.Profile, "profile", "", "`NAME` of a profile saved by wbsctl auth login (env WBSCTL_PROFILE)")
	fl.StringVar(&g.BaseURL, "base-url", "", "platform base URL (env WBSCTL_BASE_URL)")
	fl.StringVar(&g.ClientID, "client-id", "", "integration client id (env WBSCTL_CLIENT_ID)")
	fl.StringVarP(&g.Output, "output", "o", "", "output format: table, json, yaml, csv, ndjson (default: table on a terminal, tab-separated on a pipe)")
	fl.BoolVar(&g.NoHeaders, "no-headers", false, "leave out the header row")
	fl.StringVar(&g.JQ, "jq", "", "filter the JSON output with a jq expression")
	fl.StringVar(&g.Template, "template", "", "render the JSON output with a Go template")
	fl.BoolVar(&g.Debug, "debug", false, "log each HTTP attempt on stderr, secrets redacted (env WBSCTL_DEBUG=1)")
	fl.BoolVar(&g.InsecureHTTP, "insecure-http", false, "allow credentials over plain HTTP to a host other than loopback")
	fl.StringVar(&g.CAFile, "ca-file", "", "PEM file of extra certificate authorities to trust (corporate TLS)")
	fl.StringVar(&g.ClientCert, "client-cert", "", "client certificate (PEM `FILE`) for a platform that requires mutual TLS (env WBSCTL_CLIENT_CERT)")
	fl.StringVar(&g.ClientKey, "client-key", "", "private key (PEM `FILE`) of --client-cert (env WBSCTL_CLIENT_KEY)")
	fl.DurationVar(&g.RequestTimeout, "request-timeout", 0, "bound each HTTP attempt, such as 10s (default 30s; env WBSCTL_REQUEST_TIMEOUT)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json", "yaml", "csv", "ndjson"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("profile", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cfg, _, err := f.Config()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for name := range cfg.Profiles {
			names = append(names, name)
		}
		sort.Strings(names)
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// Printer returns an output printer for the global output flags.
func (f *Factory) Printer(columns ...string) (*output.Printer, error) {
	return f.PrinterAs(f.Global.Output, columns...)
}

// Deps are what a command takes from the Factory, as fields its options
// embed: set in one place (Factory.Deps), replaced in tests.
type Deps struct {
	IO      *iostreams.IOStreams
	Client  func(...sdk.Option) (*sdk.Client, error)
	Printer func(columns ...string) (*output.Printer, error)
	// Structured is whether -o, --jq or --template ask for structured
	// output.
	Structured func() bool
}

// Deps returns the Factory's streams, client, printer and output mode.
func (f *Factory) Deps() Deps {
	return Deps{IO: f.IO, Client: f.Client, Printer: f.Printer, Structured: f.StructuredOutput}
}

// StructuredOutput reports whether the global flags ask for structured
// output (-o, --jq or --template) rather than the default for people.
func (f *Factory) StructuredOutput() bool {
	return f.Global.Output != "" || f.Global.JQ != "" || f.Global.Template != ""
}

// PrinterAs returns an output printer in format (a command's own --json,
// say) and the other global output flags.
func (f *Factory) PrinterAs(format string, columns ...string) (*output.Printer, error) {
	g := f.Global
	p, err := output.New(f.IO.Out, output.Options{
		Format: format, NoHeaders: g.NoHeaders, JQ: g.JQ, Template: g.Template, Terminal: f.IO.IsStdoutTTY(),
	}, columns...)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return p, nil
}

// Credentials are the resolved platform and credential of a command.
type Credentials struct {
	Profile  string
	BaseURL  string
	ClientID string
	Secret   string
	Token    string
	// Source says where the secret came from: "environment", "keyring",
	// "file", or "" when there is none.
	Source string
	// ClientCert and ClientKey are the files of a client certificate for
	// mutual TLS, "" when none.
	ClientCert, ClientKey string
}

// ProfileName is the profile in use: --profile, WBSCTL_PROFILE, the
// configuration's current profile, or "default".
func (f *Factory) ProfileName(cfg *config.Config) string {
	return cmp.Or(f.Global.Profile, f.Getenv("WBSCTL_PROFILE"), cfg.CurrentProfile, "default")
}

// Config loads the configuration and its folder.
func (f *Factory) Config() (*config.Config, string, error) {
	dir, err := config.Dir(f.Getenv)
	if err != nil {
		return nil, "", err
	}
	cfg, err := config.Load(dir)
	return cfg, dir, err
}

// SecretStore returns the store of a profile's secret.
func (f *Factory) SecretStore(storage, configDir string) credentials.Store {
	if storage == config.StorageFile {
		return &credentials.File{Path: filepath.Join(configDir, "secrets.json")}
	}
	if f.Keyring != nil {
		return f.Keyring
	}
	timeout := 3 * time.Second
	if d, err := time.ParseDuration(f.Getenv("WBSCTL_KEYRING_TIMEOUT")); err == nil && d > 0 {
		timeout = d
	}
	return credentials.Keyring{Timeout: timeout, Getenv: f.Getenv}
}

// Resolve finds the credentials in order: flags, then the environment
// (WBSCTL_BASE_URL, WBSCTL_CLIENT_ID, WBSCTL_CLIENT_SECRET, WBSCTL_TOKEN),
// then the profile and its secret in the keyring or file. With a secret or
// token in the environment the keyring is never touched. A secret is
// never read from a flag.
func (f *Factory) Resolve() (*Credentials, error) {
	cfg, dir, err := f.Config()
	if err != nil {
		return nil, err
	}
	name := f.ProfileName(cfg)
	prof, hasProfile := cfg.Profiles[name]
	c := &Credentials{
		Profile:  name,
		BaseURL:  cmp.Or(f.Global.BaseURL, f.Getenv("WBSCTL_BASE_URL"), prof.BaseURL),
		ClientID: cmp.Or(f.Global.ClientID, f.Getenv("WBSCTL_CLIENT_ID"), prof.ClientID),
		Secret:   f.Getenv("WBSCTL_CLIENT_SECRET"),
		Token:    f.Getenv("WBSCTL_TOKEN"),
	}
	c.ClientCert, c.ClientKey = f.clientCertificateFiles(prof)
	switch {
	case c.Secret != "" || c.Token != "":
		c.Source = "environment"
	case hasProfile && c.ClientID == prof.ClientID && c.BaseURL == prof.BaseURL:
		secret, err := f.SecretStore(prof.SecretStorage, dir).Get(credentials.Account(c.ClientID, c.BaseURL))
		if err != nil {
			return nil, &AuthError{Err: fmt.Errorf("profile %q: reading the secret: %w", name, err)}
		}
		c.Secret, c.Source = secret, cmp.Or(prof.SecretStorage, config.StorageKeyring)
	}
	return c, nil
}

// TokenCache is the file that keeps access tokens across invocations.
func (f *Factory) TokenCache() (*credentials.TokenFile, error) {
	dir, err := credentials.CacheDir(f.Getenv)
	if err != nil {
		return nil, err
	}
	return &credentials.TokenFile{Path: filepath.Join(dir, "tokens.json")}, nil
}

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
	if err := checkTransport(c.BaseURL, f.Global.InsecureHTTP); err != nil {
		return nil, err
	}
	opts := []sdk.Option{sdk.WithUserAgent("wbsctl/" + build.Version)}
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
	if f.Global.CAFile != "" {
		hc, err := httpClientWithCA(f.Global.CAFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdk.WithHTTPClient(hc))
	}
	if c.ClientCert != "" || c.ClientKey != "" {
		cert, err := loadClientCertificate(c.ClientCert, c.ClientKey)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdk.WithClientCertificate(cert))
	}
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

// clientCertificateFiles are the client certificate and key in use: the
// flags, the environment (WBSCTL_CLIENT_CERT, WBSCTL_CLIENT_KEY), or the
// profile's, as a pair from one place.
func (f *Factory) clientCertificateFiles(prof config.Profile) (cert, key string) {
	for _, pair := range [][2]string{
		{f.Global.ClientCert, f.Global.ClientKey},
		{f.Getenv("WBSCTL_CLIENT_CERT"), f.Getenv("WBSCTL_CLIENT_KEY")},
		{prof.ClientCert, prof.ClientKey},
	} {
		if pair[0] != "" || pair[1] != "" {
			return pair[0], pair[1]
		}
	}
	return "", ""
}

// loadClientCertificate reads a client certificate and its key.
func loadClientCertificate(certFile, keyFile string) (tls.Certificate, error) {
	if certFile == "" || keyFile == "" {
		return tls.Certificate{}, &UsageError{Err: errors.New("a client certificate needs both --client-cert and --client-key (or WBSCTL_CLIENT_CERT and WBSCTL_CLIENT_KEY)")}
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return tls.Certificate{}, &UsageError{Err: fmt.Errorf("--client-cert %s, --client-key %s: %w", certFile, keyFile, err)}
	}
	return cert, nil
}

// httpClientWithCA trusts the system's authorities and those in file.
func httpClientWithCA(file string) (*http.Client, error) {
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
	tr := sdk.DefaultTransport()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}

// CompleteCodes completes element codes from the first pages of the list,
// quickly: completion must not hang a shell.
func (f *Factory) CompleteCodes(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	c, err := f.Client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
	defer cancel()
	var codes []string
	for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 100}) {
		if err != nil || len(codes) >= 1000 {
			break
		}
		if strings.HasPrefix(el.Code, prefix) {
			codes = append(codes, el.Code)
		}
	}
	return codes, cobra.ShellCompDirectiveNoFileComp
}

// checkTransport refuses to send credentials over plain HTTP to a host
// other than loopback, unless the user asked for it.
func checkTransport(baseURL string, insecure bool) error {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &UsageError{Err: fmt.Errorf("base URL %q is not an absolute http or https URL", baseURL)}
	}
	if u.Scheme == "https" || insecure {
		return nil
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || strings.EqualFold(host, "localhost") {
		return nil
	}
	return &UsageError{Err: fmt.Errorf("refusing to send credentials over plain HTTP to %s: use https, or --insecure-http", host)}
}
