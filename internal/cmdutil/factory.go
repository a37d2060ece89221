// Package cmdutil holds what every wbsctl command shares: the streams, the
// global flags, building the SDK client from the resolved credentials,
// printing results and errors, and the exit codes.
package cmdutil

import (
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/credentials"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk"
)

// DefaultMaxPages is the --max-pages of every command that reads a whole
// list: a guard against a platform whose list never ends. 100,000 pages
// hold ten million elements at a page size of 100.
const DefaultMaxPages = 100_000

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
	// Transport is what every client sends through; nil means
	// sdk.DefaultTransport with --ca-file and --client-cert. Tests set
	// it to reach a server without sockets or through faults.
	Transport http.RoundTripper
	// Keyring is where profiles keep their secrets; nil means the OS
	// keyring under WBSCTL_KEYRING_TIMEOUT (3 s by default).
	Keyring credentials.Store

	requests requestCounter
}

// GlobalOptions are the flags every command takes, and the output flags
// of those that print data (AddOutputFlags).
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
	fl.BoolVar(&g.Debug, "debug", false, "log each HTTP attempt on stderr, secrets redacted (env WBSCTL_DEBUG=1)")
	fl.BoolVar(&g.InsecureHTTP, "insecure-http", false, "allow credentials over plain HTTP to a host other than loopback")
	fl.StringVar(&g.CAFile, "ca-file", "", "PEM `FILE` of extra certificate authorities to trust, such as a corporate one (env WBSCTL_CA_FILE)")
	fl.StringVar(&g.ClientCert, "client-cert", "", "client certificate (PEM `FILE`) for a platform that requires mutual TLS (env WBSCTL_CLIENT_CERT)")
	fl.StringVar(&g.ClientKey, "client-key", "", "private key (PEM `FILE`) of --client-cert (env WBSCTL_CLIENT_KEY)")
	fl.DurationVar(&g.RequestTimeout, "request-timeout", 0, "bound each HTTP attempt, such as 10s (default 30s; env WBSCTL_REQUEST_TIMEOUT)")
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
	// Mode is what -o, --jq and --template ask for.
	Mode func() output.Mode
	// Requests counts what the clients sent.
	Requests func() RequestCounts
}

// Deps returns the Factory's streams, client, printer, output mode and
// request count.
func (f *Factory) Deps() Deps {
	return Deps{IO: f.IO, Client: f.Client, Printer: f.Printer, Mode: f.OutputMode, Requests: f.Requests}
}

// OutputMode is what the global output flags ask for.
func (f *Factory) OutputMode() output.Mode {
	return output.ModeOf(f.printerOptions(f.Global.Output))
}

// PrinterAs returns an output printer in format (a command's own --json,
// say) and the other global output flags.
func (f *Factory) PrinterAs(format string, columns ...string) (*output.Printer, error) {
	p, err := output.New(f.IO.FencedOut(), f.printerOptions(format), columns...)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return p, nil
}

func (f *Factory) printerOptions(format string) output.Options {
	g := f.Global
	return output.Options{Format: format, NoHeaders: g.NoHeaders, JQ: g.JQ, Template: g.Template, Terminal: f.IO.IsStdoutTTY()}
}
