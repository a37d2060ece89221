// Package cmdutil holds what every wbsctl command shares: the streams, the
// global flags, building the SDK client from the resolved credentials,
// printing results and errors, and the exit codes.
package cmdutil

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/build"
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
	// policy).
	ClientOptions []sdk.Option
}

// GlobalOptions are the flags every command takes.
type GlobalOptions struct {
	BaseURL      string
	ClientID     string
	Output       string
	NoHeaders    bool
	JQ           string
	Template     string
	Debug        bool
	InsecureHTTP bool
}

// New returns a Factory over the process's streams and environment.
func New(io *iostreams.IOStreams) *Factory {
	return &Factory{IO: io, Getenv: os.Getenv}
}

// AddGlobalFlags adds the persistent flags to the root command.
func (f *Factory) AddGlobalFlags(cmd *cobra.Command) {
	fl := cmd.PersistentFlags()
	g := &f.Global
	fl.StringVar(&g.BaseURL, "base-url", "", "platform base URL (env WBSCTL_BASE_URL)")
	fl.StringVar(&g.ClientID, "client-id", "", "integration client id (env WBSCTL_CLIENT_ID)")
	fl.StringVarP(&g.Output, "output", "o", "", "output format: table, json, yaml, csv, ndjson (default: table on a terminal, tab-separated on a pipe)")
	fl.BoolVar(&g.NoHeaders, "no-headers", false, "leave out the header row")
	fl.StringVar(&g.JQ, "jq", "", "filter the JSON output with a jq expression")
	fl.StringVar(&g.Template, "template", "", "render the JSON output with a Go template")
	fl.BoolVar(&g.Debug, "debug", false, "log each HTTP attempt on stderr, secrets redacted (env WBSCTL_DEBUG=1)")
	fl.BoolVar(&g.InsecureHTTP, "insecure-http", false, "allow credentials over plain HTTP to a host other than loopback")
}

// Printer returns an output printer for the global output flags.
func (f *Factory) Printer(columns ...string) (*output.Printer, error) {
	g := f.Global
	p, err := output.New(f.IO.Out, output.Options{
		Format: g.Output, NoHeaders: g.NoHeaders, JQ: g.JQ, Template: g.Template, Terminal: f.IO.StdoutTTY,
	}, columns...)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return p, nil
}

// Client builds the SDK client from, in order: flags, then the
// environment (WBSCTL_BASE_URL, WBSCTL_CLIENT_ID, WBSCTL_CLIENT_SECRET,
// WBSCTL_TOKEN). A secret is never read from a flag.
func (f *Factory) Client() (*sdk.Client, error) {
	baseURL := first(f.Global.BaseURL, f.Getenv("WBSCTL_BASE_URL"))
	clientID := first(f.Global.ClientID, f.Getenv("WBSCTL_CLIENT_ID"))
	secret, token := f.Getenv("WBSCTL_CLIENT_SECRET"), f.Getenv("WBSCTL_TOKEN")
	if baseURL == "" {
		return nil, &AuthError{Err: fmt.Errorf("no base URL: set --base-url or WBSCTL_BASE_URL")}
	}
	if err := checkTransport(baseURL, f.Global.InsecureHTTP); err != nil {
		return nil, err
	}
	opts := []sdk.Option{sdk.WithUserAgent("wbsctl/" + build.Version)}
	switch {
	case clientID != "" && secret != "":
		opts = append(opts, sdk.WithCredentials(clientID, secret))
	case token != "":
		opts = append(opts, sdk.WithAccessToken(token))
	default:
		return nil, &AuthError{Err: fmt.Errorf("no credentials: set WBSCTL_CLIENT_ID and WBSCTL_CLIENT_SECRET, or WBSCTL_TOKEN")}
	}
	if f.Global.Debug || f.Getenv("WBSCTL_DEBUG") == "1" {
		opts = append(opts, sdk.WithLogger(slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	opts = append(opts, f.ClientOptions...)
	return sdk.NewClient(baseURL, opts...)
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

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
