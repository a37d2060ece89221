// Package serve is `wbsctl serve`: the reference server as a process.
package serve

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// Options are the flags of `wbsctl serve`.
type Options struct {
	cmdutil.Deps
	Addr          string
	Credentials   []string
	TokenLifetime time.Duration
	OrgUpdate     string
	RateLimit     int
	// RateWindow is fixed or sliding; see wbstest.RateWindow.
	RateWindow  string
	MaxPageSize int
	// Next, Hits, EmptyList and PastEnd choose the server's reading of
	// the spec's open points on lists; see wbstest.
	Next, Hits, EmptyList, PastEnd string
	Faults                         []string
	Seed                           int64
	// Elements is how many generated elements the server starts with.
	Elements int
	// TLS serves https with a certificate made at start; TLSCAOut is
	// where its PEM goes (default: a temporary file, removed on exit).
	TLS      bool
	TLSCAOut string
	// TLSCert and TLSKey serve https with the user's own pair.
	TLSCert, TLSKey string
	// ClientCA requires client certificates signed by an authority in
	// this PEM file (mutual TLS).
	ClientCA string
	// Ready, when set, receives the base URL once the server listens.
	Ready func(baseURL string)
}

// NewCmdServe returns `wbsctl serve`; runF replaces the run function in
// tests of the flags.
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:         "serve",
		Annotations: map[string]string{cmdutil.OwnSignals: "shuts down"},
		Short:       "Run the reference server of the platform",
		Long: `Run the reference server: a stateful fake of the platform's WBS element
interface, for trying wbsctl and testing code without an account.

Without --credential it makes up one credential and prints it, with the
export line that points wbsctl in another shell at the server. It prints
its base URL on the first line of standard output, logs one line per request on
standard error, and stops cleanly on SIGINT or SIGTERM.

With --tls it serves https with a self-signed certificate it makes at start
(ECDSA P-256, valid for a day, for localhost, 127.0.0.1, ::1 and the host of
--addr, or this machine's host name when --addr listens on every interface).
It writes the certificate's PEM to the file of --tls-ca-out, or else to a
temporary file it removes on exit, and prints that file's path on the second
line of standard output as "ca file:" followed by the path: give it to
wbsctl's --ca-file, or to curl --cacert. With --tls-cert and --tls-key it
serves https with your own certificate and key (PEM) instead. Certificate
verification is never turned off; trust the certificate instead.

A fault is a comma-separated list of key=value: op (token, create, list,
update, delete, deleteLinks, listLinks, execute), method, kind (latency,
status, reset, drop-after-commit), status, retry-after, latency, nth,
probability, times. For instance:
  --fault op=create,kind=drop-after-commit,probability=0.02
  --fault kind=status,status=503,retry-after=1s,probability=0.1`,
		Example: `  wbsctl serve --addr 127.0.0.1:0
  wbsctl serve --tls --tls-ca-out ca.pem   # then: wbsctl --ca-file ca.pem --base-url https://127.0.0.1:8080 ...
  wbsctl serve --addr :8443 --tls-cert server.crt --tls-key server.key
  wbsctl serve --tls --tls-ca-out ca.pem --client-ca clients-ca.pem   # mutual TLS
  wbsctl serve --credential integrationhub-1=s3cret --rate-limit 240 --org-update replace`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			run := cmdutil.Pick(runF, runServe)
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return run(ctx, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on (HOST:PORT; port 0 picks a free one)")
	fl.StringArrayVar(&opts.Credentials, "credential", nil, "accepted credential as CLIENT_ID=SECRET (repeatable)")
	fl.DurationVar(&opts.TokenLifetime, "token-lifetime", time.Hour, "lifetime of issued access tokens")
	fl.StringVar(&opts.OrgUpdate, "org-update", "merge", "what an update's businessOrganizations does: merge or replace")
	fl.IntVar(&opts.RateLimit, "rate-limit", 0, "requests per minute per client id (0: no limit)")
	fl.StringVar(&opts.RateWindow, "rate-window", "fixed", "how --rate-limit counts: fixed (each minute from a client's first request) or sliding (a bucket refilled continuously)")
	fl.IntVar(&opts.MaxPageSize, "max-page-size", 100, "largest page size answered; a larger pageSize is served at this size, silently")
	fl.StringVar(&opts.Next, "next", "url", "what a list page's next holds: url, relative, page, offset, cursor, null or absent")
	fl.StringVar(&opts.Hits, "hits", "total", "what a list page's hits counts: total, page or null")
	fl.StringVar(&opts.EmptyList, "empty-list", "200", "status of an empty list: 200 (empty data) or 404")
	fl.StringVar(&opts.PastEnd, "past-end", "empty", "answer to a page past the end: empty, 404 or last (the last page again)")
	fl.StringArrayVar(&opts.Faults, "fault", nil, "fault rule to inject (repeatable; see above)")
	fl.Int64Var(&opts.Seed, "seed", 1, "seed of probabilistic faults")
	fl.IntVar(&opts.Elements, "elements", 0, "start with this many generated elements (E-0000001, E-0000002, …), to try lists on")
	fl.BoolVar(&opts.TLS, "tls", false, "serve https with a self-signed certificate made at start")
	fl.StringVar(&opts.TLSCAOut, "tls-ca-out", "", "with --tls: write the certificate's PEM to this `FILE` (for --ca-file)")
	fl.StringVar(&opts.TLSCert, "tls-cert", "", "serve https with the certificate (PEM) in this `FILE`; needs --tls-key")
	fl.StringVar(&opts.TLSKey, "tls-key", "", "the private key (PEM) of --tls-cert, in this `FILE`")
	fl.StringVar(&opts.ClientCA, "client-ca", "", "with TLS: require client certificates signed by an authority in this PEM `FILE` (mutual TLS)")
	return f.AddOutputFlags(cmd, cmdutil.DocumentFormats...)
}

// runServe starts the server and blocks until ctx ends, then shuts down.
func runServe(ctx context.Context, opts *Options) error {
	logger := slog.New(slog.NewTextHandler(opts.IO.ErrOut, nil))
	serverOpts, err := serverOptions(opts, logger)
	if err != nil {
		return err
	}
	srv := wbstest.New(serverOpts...)
	populate(srv, opts.Elements)
	tlsConfig, caFile, cleanup, err := tlsSetup(opts)
	if err != nil {
		return err
	}
	defer cleanup()

	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	baseURL := "http://" + ln.Addr().String()
	if tlsConfig != nil {
		baseURL = "https://" + ln.Addr().String()
	}
	if err := announce(opts, baseURL, caFile, srv); err != nil {
		return err
	}
	hs := srv.HTTPServer(opts.Addr)
	// TLS handshake failures and the like go to the request log.
	hs.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	return serveUntilDone(ctx, hs, ln, tlsConfig)
}

// serverOptions reads the flags into the options of the server, which
// logs its requests to logger.
func serverOptions(opts *Options, logger *slog.Logger) ([]wbstest.Option, error) {
	var serverOpts []wbstest.Option
	for _, read := range []func(*Options) ([]wbstest.Option, error){
		credentialOptions, orgUpdateOption, rateWindowOption, listReadings, faultOptions,
	} {
		more, err := read(opts)
		if err != nil {
			return nil, err
		}
		serverOpts = append(serverOpts, more...)
	}
	serverOpts = append(serverOpts,
		wbstest.WithTokenLifetime(opts.TokenLifetime), wbstest.WithRateLimit(opts.RateLimit),
		wbstest.WithMaxPageSize(opts.MaxPageSize), wbstest.WithSeed(opts.Seed), wbstest.WithLogger(logger))
	if opts.Elements < 0 {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--elements %d: want 0 or more", opts.Elements)}
	}
	return serverOpts, nil
}

// credentialOptions reads --credential, CLIENT_ID=SECRET each.
func credentialOptions(opts *Options) ([]wbstest.Option, error) {
	var serverOpts []wbstest.Option
	for _, c := range opts.Credentials {
		id, secret, ok := strings.Cut(c, "=")
		if !ok || id == "" || secret == "" {
			return nil, &cmdutil.UsageError{Err: fmt.Errorf("--credential %q: want CLIENT_ID=SECRET", strings.SplitN(c, "=", 2)[0]+"=…")}
		}
		serverOpts = append(serverOpts, wbstest.WithCredential(id, secret))
	}
	return serverOpts, nil
}

// orgUpdateOption reads --org-update.
func orgUpdateOption(opts *Options) ([]wbstest.Option, error) {
	switch opts.OrgUpdate {
	case "merge":
		return []wbstest.Option{wbstest.WithOrgUpdateMode(wbstest.OrgMerge)}, nil
	case "replace":
		return []wbstest.Option{wbstest.WithOrgUpdateMode(wbstest.OrgReplace)}, nil
	}
	return nil, &cmdutil.UsageError{Err: fmt.Errorf("--org-update %q: want merge or replace", opts.OrgUpdate)}
}

// rateWindowOption reads --rate-window.
func rateWindowOption(opts *Options) ([]wbstest.Option, error) {
	switch opts.RateWindow {
	case "", "fixed":
		return []wbstest.Option{wbstest.WithRateWindow(wbstest.FixedWindow)}, nil
	case "sliding":
		return []wbstest.Option{wbstest.WithRateWindow(wbstest.SlidingWindow)}, nil
	}
	return nil, &cmdutil.UsageError{Err: fmt.Errorf("--rate-window %q: want fixed or sliding", opts.RateWindow)}
}

// faultOptions reads --fault, a rule each.
func faultOptions(opts *Options) ([]wbstest.Option, error) {
	var serverOpts []wbstest.Option
	for _, spec := range opts.Faults {
		rule, err := ParseFault(spec)
		if err != nil {
			return nil, &cmdutil.UsageError{Err: err}
		}
		serverOpts = append(serverOpts, wbstest.WithFaults(rule))
	}
	return serverOpts, nil
}

// announce says where the server listens, as a document or for a
// person, and tells opts.Ready.
func announce(opts *Options, baseURL, caFile string, srv *wbstest.Server) error {
	if opts.Mode != nil && opts.Mode().Structured() {
		if err := printStart(opts, baseURL, caFile, srv); err != nil {
			return err
		}
	} else {
		printStartLines(opts, baseURL, caFile, srv)
	}
	if opts.Ready != nil {
		opts.Ready(baseURL)
	}
	return nil
}

// serveUntilDone serves hs on ln, with https when tlsConfig is given,
// until it fails or ctx ends, then shuts it down within 5 seconds.
func serveUntilDone(ctx context.Context, hs *http.Server, ln net.Listener, tlsConfig *tls.Config) error {
	errc := make(chan error, 1)
	if tlsConfig != nil {
		hs.TLSConfig = tlsConfig
		go func() { errc <- hs.ServeTLS(ln, "", "") }()
	} else {
		go func() { errc <- hs.Serve(ln) }()
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		return fmt.Errorf("serve: shutting down: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// The readings of lists that the flags choose from, each by its name.
var (
	nextStyles = []wbstest.NextStyle{wbstest.NextURL, wbstest.NextRelativeURL, wbstest.NextPageNumber,
		wbstest.NextOffset, wbstest.NextCursor, wbstest.NextNull, wbstest.NextAbsent}
	hitsMeanings = []wbstest.HitsMeaning{wbstest.HitsTotal, wbstest.HitsPageCount, wbstest.HitsNull}
	pastEnds     = []wbstest.PastEnd{wbstest.PastEndEmpty, wbstest.PastEndNotFound, wbstest.PastEndLastPage}
)

// byName returns the one of values whose String is name; what says what
// the values are, in the error that lists their names.
func byName[T fmt.Stringer](what, name string, values []T) (T, error) {
	names := make([]string, len(values))
	for i, v := range values {
		if names[i] = v.String(); names[i] == name {
			return v, nil
		}
	}
	var none T
	return none, fmt.Errorf("unknown %s %q: want one of %s", what, name, strings.Join(names, ", "))
}

// listReadings reads the flags that choose the server's reading of lists.
func listReadings(opts *Options) ([]wbstest.Option, error) {
	next, err := byName("next style", cmp.Or(opts.Next, "url"), nextStyles)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--next: %w", err)}
	}
	hits, err := byName("hits meaning", cmp.Or(opts.Hits, "total"), hitsMeanings)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--hits: %w", err)}
	}
	pastEnd, err := byName("past-the-end answer", cmp.Or(opts.PastEnd, "empty"), pastEnds)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--past-end: %w", err)}
	}
	empty := http.StatusOK
	switch opts.EmptyList {
	case "", "200":
	case "404":
		empty = http.StatusNotFound
	default:
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--empty-list %q: want 200 or 404", opts.EmptyList)}
	}
	if opts.MaxPageSize < 0 {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--max-page-size %d: want at least 1", opts.MaxPageSize)}
	}
	return []wbstest.Option{wbstest.WithNextStyle(next), wbstest.WithHitsMeaning(hits),
		wbstest.WithEmptyListStatus(empty), wbstest.WithPastEnd(pastEnd)}, nil
}

// ParseFault reads a fault rule such as
// "op=create,kind=status,status=503,retry-after=1s,probability=0.1".
func ParseFault(spec string) (wbstest.FaultRule, error) {
	var r wbstest.FaultRule
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return r, fmt.Errorf("--fault %q: %q is not key=value", spec, kv)
		}
		var err error
		switch k {
		case "op":
			r.Operation = wbstest.Operation(v)
		case "method":
			r.Method = strings.ToUpper(v)
		case "kind":
			r.Kind = wbstest.FaultKind(v)
			switch r.Kind {
			case wbstest.FaultLatency, wbstest.FaultStatus, wbstest.FaultReset, wbstest.FaultDropAfterCommit:
			default:
				err = errors.New("kind must be latency, status, reset or drop-after-commit")
			}
		case "status":
			r.Status, err = strconv.Atoi(v)
		case "retry-after":
			r.RetryAfter, err = time.ParseDuration(v)
		case "latency":
			r.Latency, err = time.ParseDuration(v)
		case "nth":
			r.Nth, err = strconv.Atoi(v)
		case "times":
			r.Times, err = strconv.Atoi(v)
		case "probability":
			r.Probability, err = strconv.ParseFloat(v, 64)
		default:
			err = errors.New("unknown key")
		}
		if err != nil {
			return r, fmt.Errorf("--fault %q: %s: %v", spec, k, err)
		}
	}
	if r.Kind == "" {
		return r, fmt.Errorf("--fault %q: kind is required", spec)
	}
	if r.Kind == wbstest.FaultStatus && (r.Status < 400 || r.Status > 599) {
		return r, fmt.Errorf("--fault %q: status must be 400 to 599", spec)
	}
	return r, nil
}

// populate gives srv n generated elements, every third inactive and every
// fifth without a description, in batches so that a million take little
// more memory than the elements themselves.
func populate(srv *wbstest.Server, n int) {
	batch := make([]wbstest.Element, 0, min(n, 10000))
	for i := 1; i <= n; i++ {
		el := wbstest.Element{Code: fmt.Sprintf("E-%07d", i), IsActive: i%3 != 0}
		if i%5 != 0 {
			d := fmt.Sprintf("generated element %d", i)
			el.Description = &d
		}
		if batch = append(batch, el); len(batch) == cap(batch) || i == n {
			srv.Put(batch...)
			batch = batch[:0]
		}
	}
}

// startDoc is what serve says when it listens, as a document (-o json).
type startDoc struct {
	BaseURL string `json:"baseUrl"`
	CAFile  string `json:"caFile,omitempty"`
	// The server's own, made-up credential; absent with --credential.
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
}

// printStart writes the start as one document, for a script to read.
func printStart(opts *Options, baseURL, caFile string, srv *wbstest.Server) error {
	doc := startDoc{BaseURL: baseURL, CAFile: caFile}
	if len(opts.Credentials) == 0 {
		doc.ClientID, doc.ClientSecret = srv.ClientID, srv.ClientSecret
	}
	p, err := opts.Printer()
	if err != nil {
		return err
	}
	return p.Single(doc)
}

// printStartLines writes the start for a person: the base URL on the
// first line, then the credential and the line to paste.
func printStartLines(opts *Options, baseURL, caFile string, srv *wbstest.Server) {
	fmt.Fprintln(opts.IO.Out, baseURL)
	if caFile != "" {
		fmt.Fprintf(opts.IO.Out, "ca file:       %s\n", caFile)
	}
	if len(opts.Credentials) == 0 {
		// The server's own, made-up credential: printing it is how a
		// newcomer gets to use it.
		fmt.Fprintf(opts.IO.Out, "client id:     %s\nclient secret: %s\n", srv.ClientID, srv.ClientSecret)
		env := fmt.Sprintf("export WBSCTL_BASE_URL=%s WBSCTL_CLIENT_ID=%s WBSCTL_CLIENT_SECRET=%s", baseURL, srv.ClientID, srv.ClientSecret)
		if caFile != "" {
			env += " WBSCTL_CA_FILE=" + caFile
		}
		fmt.Fprintf(opts.IO.Out, "\nto use it from another shell, paste:\n%s\n", env)
	}
}
