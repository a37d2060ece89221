// Package auth holds `wbsctl auth`: login, status, logout and token.
package auth

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/config"
	"github.com/wbsctl/wbsctl/internal/credentials"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/sdk"
	"golang.org/x/term"
)

// NewCmdAuth returns `wbsctl auth`.
func NewCmdAuth(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "auth <command>", Short: "Log in, inspect and log out of profiles"}
	cmd.AddCommand(NewCmdLogin(f, nil), NewCmdStatus(f, nil), NewCmdLogout(f, nil), NewCmdToken(f, nil))
	return cmd
}

// LoginOptions are the inputs of `auth login`.
type LoginOptions struct {
	cmdutil.Deps
	cmdutil.Profiles
	// BaseURL, ClientID and the files of --client-cert, --client-key and
	// --ca-file are the global flags that make the profile.
	BaseURL, ClientID             string
	ClientCert, ClientKey, CAFile string

	WithSecretStdin bool
	InsecureStorage bool
	// ReadSecret reads the secret from a hidden prompt; tests replace it.
	ReadSecret func() (string, error)
}

// NewCmdLogin returns `wbsctl auth login`.
func NewCmdLogin(f *cmdutil.Factory, runF func(context.Context, *LoginOptions) error) *cobra.Command {
	opts := &LoginOptions{Deps: f.Deps(), Profiles: f.Profiles(), ReadSecret: promptSecret(f.IO)}
	cmd := &cobra.Command{
		Use:   "login --base-url URL --client-id ID",
		Short: "Save a profile, its secret in the OS keyring",
		Long: `Save a profile: the base URL and client id in the configuration file, the
secret in the OS keyring. The secret is read from a hidden prompt, or from
standard input with --with-secret-stdin; never from a flag. A token is
exchanged first: nothing is saved when that fails.

Without an OS keyring (no D-Bus session, as in most CI containers) use
environment variables instead, or --insecure-storage to keep the secret in
a file of mode 0600.`,
		Example: `  wbsctl auth login --base-url https://api.example.com --client-id integrationhub-1234
  printenv SECRET | wbsctl auth login --profile test --base-url http://127.0.0.1:8080 --client-id integrationhub-1 --with-secret-stdin`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g := f.Global
			opts.BaseURL, opts.ClientID = g.BaseURL, g.ClientID
			opts.ClientCert, opts.ClientKey, opts.CAFile = g.ClientCert, g.ClientKey, g.CAFile
			return cmdutil.Pick(runF, runLogin)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.WithSecretStdin, "with-secret-stdin", false, "read the secret from standard input")
	cmd.Flags().BoolVar(&opts.InsecureStorage, "insecure-storage", false, "keep the secret in a 0600 file instead of the OS keyring")
	return cmd
}

func promptSecret(streams *iostreams.IOStreams) func() (string, error) {
	return func() (string, error) {
		file, ok := streams.In.(*os.File)
		if !ok || !streams.CanPrompt() {
			return "", &cmdutil.UsageError{Err: errors.New("no terminal to prompt for the secret: use --with-secret-stdin")}
		}
		fmt.Fprint(streams.ErrOut, "Client secret: ")
		b, err := term.ReadPassword(int(file.Fd()))
		fmt.Fprintln(streams.ErrOut)
		return string(b), err
	}
}

func runLogin(ctx context.Context, o *LoginOptions) error {
	if o.BaseURL == "" || o.ClientID == "" {
		return &cmdutil.UsageError{Err: errors.New("--base-url and --client-id are required")}
	}
	secret, err := o.readSecret()
	if err != nil {
		return err
	}
	cfg, dir, err := o.Config()
	if err != nil {
		return err
	}
	creds := &cmdutil.Credentials{BaseURL: strings.TrimRight(o.BaseURL, "/"), ClientID: o.ClientID, Secret: secret,
		ClientCert: absPath(o.ClientCert), ClientKey: absPath(o.ClientKey), CAFile: absPath(o.CAFile)}
	tok, err := o.proveCredential(ctx, creds)
	if err != nil {
		return err
	}
	storage := config.StorageKeyring
	if o.InsecureStorage {
		storage = config.StorageFile
	}
	if err := o.keepSecret(creds, storage, dir); err != nil {
		return err
	}
	name, err := o.saveProfile(cfg, dir, creds, storage)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "logged in to %s as %s (profile %q, secret in the %s, token valid until %s)\n",
		creds.BaseURL, creds.ClientID, name, storage, tok.ExpiresAt.Format(time.RFC3339))
	return nil
}

// readSecret reads the secret from standard input, with
// --with-secret-stdin, or else from the prompt; it is never empty.
func (o *LoginOptions) readSecret() (string, error) {
	var secret string
	var err error
	if o.WithSecretStdin {
		line, rerr := bufio.NewReader(o.IO.In).ReadString('\n')
		if rerr != nil && line == "" {
			return "", &cmdutil.UsageError{Err: errors.New("--with-secret-stdin: standard input is empty")}
		}
		secret = strings.TrimRight(line, "\r\n")
	} else if secret, err = o.ReadSecret(); err != nil {
		return "", err
	}
	if secret == "" {
		return "", &cmdutil.UsageError{Err: errors.New("the secret is empty")}
	}
	return secret, nil
}

// proveCredential exchanges creds for a token: a fresh exchange with the
// secret given, never a cached token, since only the platform's answer
// proves the secret.
func (o *LoginOptions) proveCredential(ctx context.Context, creds *cmdutil.Credentials) (sdk.Token, error) {
	c, err := o.ClientFor(creds)
	if err != nil {
		return sdk.Token{}, err
	}
	tok, err := c.ExchangeToken(ctx)
	if err != nil {
		return sdk.Token{}, fmt.Errorf("login: the platform refused the credential, nothing was saved: %w", err)
	}
	return tok, nil
}

// keepSecret puts the secret of creds in storage; when that fails, it
// removes the token the exchange cached, so that nothing is left.
func (o *LoginOptions) keepSecret(creds *cmdutil.Credentials, storage, dir string) error {
	err := o.SecretStore(storage, dir).Set(credentials.Account(creds.ClientID, creds.BaseURL), creds.Secret)
	if err == nil {
		return nil
	}
	if cache, cerr := o.TokenCache(); cerr == nil {
		_ = cache.Remove(sdk.TokenCacheKey{BaseURL: creds.BaseURL, ClientID: creds.ClientID})
	}
	// The platform accepted the credential: this is no
	// authentication failure, and the user has a choice to make.
	// The advice is said once: the keyring's own is left out.
	if storage == config.StorageKeyring {
		return &savingError{err: err, msg: "login: the platform accepted the credential, but the OS keyring could not keep the secret, so nothing was saved: " +
			credentials.WithoutAdvice(err) + "\n" +
			"use --insecure-storage to keep it in a file only you can read, or set WBSCTL_BASE_URL, WBSCTL_CLIENT_ID and WBSCTL_CLIENT_SECRET instead of logging in"}
	}
	return fmt.Errorf("login: the platform accepted the credential, but saving the secret failed, so nothing was saved: %w", err)
}

// saveProfile writes the profile of creds to the configuration in dir,
// current if none is, and returns its name.
func (o *LoginOptions) saveProfile(cfg *config.Config, dir string, creds *cmdutil.Credentials, storage string) (string, error) {
	name := o.ProfileName(cfg)
	cfg.Profiles[name] = config.Profile{BaseURL: creds.BaseURL, ClientID: creds.ClientID, SecretStorage: storage,
		ClientCert: creds.ClientCert, ClientKey: creds.ClientKey, CAFile: creds.CAFile}
	if cfg.CurrentProfile == "" {
		cfg.CurrentProfile = name
	}
	if err := cfg.Save(dir); err != nil {
		return "", err
	}
	return name, nil
}

// savingError is login's message for a secret the store could not keep,
// which gives the ways out itself, over the store's error, which
// errors.Is and errors.As still find.
type savingError struct {
	err error
	msg string
}

func (e *savingError) Error() string { return e.msg }
func (e *savingError) Unwrap() error { return e.err }

// absPath makes a file given at login absolute, so that the profile
// finds it from any folder.
func absPath(p string) string {
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// Status is what `auth status` reports; it never holds the secret.
type Status struct {
	Profile        string    `json:"profile"`
	BaseURL        string    `json:"baseUrl"`
	ClientID       string    `json:"clientId"`
	SecretSource   string    `json:"secretSource"`
	TokenCached    bool      `json:"tokenCached"`
	TokenValid     bool      `json:"tokenValid"`
	TokenExpiresAt time.Time `json:"tokenExpiresAt,omitzero"`
}

// StatusOptions are the inputs of `auth status`.
type StatusOptions struct {
	cmdutil.Deps
	cmdutil.Profiles
	// JSON is --json, deprecated: the same as -o json, which it sets.
	JSON bool
}

// NewCmdStatus returns `wbsctl auth status`.
func NewCmdStatus(f *cmdutil.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{Deps: f.Deps(), Profiles: f.Profiles()}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the profile in use, where its secret is kept, and its cached token's validity",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.JSON {
				if f.Global.Output != "" && f.Global.Output != "json" {
					return &cmdutil.UsageError{Err: fmt.Errorf("--json and -o %s: give one", f.Global.Output)}
				}
				// -o json, for this run: the Factory stays as it is.
				opts.Printer = func(columns ...string) (*output.Printer, error) { return f.PrinterAs("json", columns...) }
				opts.Mode = func() output.Mode { return output.Mode{Format: output.JSON, Filter: f.OutputMode().Filter} }
				fmt.Fprintln(opts.IO.ErrOut, "warning: auth status --json is deprecated and will be refused: use -o json")
			}
			return cmdutil.Pick(runF, runStatus)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as JSON")
	// Cobra would say the deprecation on stdout, into the JSON.
	_ = cmd.Flags().MarkHidden("json")
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

func runStatus(ctx context.Context, o *StatusOptions) error {
	c, err := o.Resolve()
	if err != nil {
		return err
	}
	if c.BaseURL == "" && c.ClientID == "" && c.Token == "" {
		return &cmdutil.AuthError{Err: errors.New("not logged in: no profile, and no WBSCTL_BASE_URL or WBSCTL_CLIENT_ID; run wbsctl auth login")}
	}
	st := Status{Profile: c.Profile, BaseURL: c.BaseURL, ClientID: c.ClientID, SecretSource: c.Source}
	if cache, err := o.TokenCache(); err == nil {
		if tok, ok, _ := cache.Get(ctx, sdk.TokenCacheKey{BaseURL: strings.TrimRight(c.BaseURL, "/"), ClientID: c.ClientID, SecretDigest: sdk.SecretDigest(c.Secret)}); ok {
			st.TokenCached, st.TokenValid, st.TokenExpiresAt = true, tok.Valid(time.Now()), tok.ExpiresAt
		}
	}
	if o.Mode().Structured() {
		p, err := o.Printer("PROFILE", "BASE URL", "CLIENT ID", "SECRET", "TOKEN")
		if err != nil {
			return err
		}
		return p.Single(st, st.Profile, st.BaseURL, st.ClientID, cmp.Or(st.SecretSource, "none"), st.token())
	}
	w := o.IO.Out
	fmt.Fprintf(w, "profile:   %s\nbase URL:  %s\nclient id: %s\nsecret:    %s\n", st.Profile, st.BaseURL, st.ClientID, cmp.Or(st.SecretSource, "none"))
	fmt.Fprintf(w, "token:     %s\n", st.token())
	return nil
}

// token says what is cached of the token.
func (st Status) token() string {
	switch {
	case st.TokenValid:
		return "cached, valid until " + st.TokenExpiresAt.Format(time.RFC3339)
	case st.TokenCached:
		return "cached, expired at " + st.TokenExpiresAt.Format(time.RFC3339)
	}
	return "none cached"
}

// LogoutOptions are the inputs of `auth logout`.
type LogoutOptions struct {
	cmdutil.Deps
	cmdutil.Profiles
}

// NewCmdLogout returns `wbsctl auth logout`.
func NewCmdLogout(f *cmdutil.Factory, runF func(context.Context, *LogoutOptions) error) *cobra.Command {
	opts := &LogoutOptions{Deps: f.Deps(), Profiles: f.Profiles()}
	return &cobra.Command{
		Use:   "logout",
		Short: "Remove the profile, its secret and its cached token",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.Pick(runF, runLogout)(cmd.Context(), opts)
		},
	}
}

func runLogout(_ context.Context, o *LogoutOptions) error {
	cfg, dir, err := o.Config()
	if err != nil {
		return err
	}
	name := o.ProfileName(cfg)
	prof, ok := cfg.Profiles[name]
	if !ok {
		return &cmdutil.AuthError{Err: fmt.Errorf("not logged in: no profile %q", name)}
	}
	err = o.SecretStore(prof.SecretStorage, dir).Delete(credentials.Account(prof.ClientID, prof.BaseURL))
	if err != nil && !errors.Is(err, credentials.ErrNotFound) {
		return &cmdutil.AuthError{Err: fmt.Errorf("logout: removing the secret: %w", err)}
	}
	if cache, err := o.TokenCache(); err == nil {
		_ = cache.Remove(sdk.TokenCacheKey{BaseURL: prof.BaseURL, ClientID: prof.ClientID})
	}
	delete(cfg.Profiles, name)
	if cfg.CurrentProfile == name {
		cfg.CurrentProfile = ""
	}
	if err := cfg.Save(dir); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "logged out of profile %q\n", name)
	return nil
}

// TokenOptions are the inputs of `auth token`.
type TokenOptions struct {
	cmdutil.Deps
}

// NewCmdToken returns `wbsctl auth token`.
func NewCmdToken(f *cmdutil.Factory, runF func(context.Context, *TokenOptions) error) *cobra.Command {
	opts := &TokenOptions{Deps: f.Deps()}
	return &cobra.Command{
		Use:   "token",
		Short: "Print a valid access token, for scripts",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.Pick(runF, runToken)(cmd.Context(), opts)
		},
	}
}

func runToken(ctx context.Context, o *TokenOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	tok, err := c.Token(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(o.IO.Out, tok.AccessToken)
	return err
}
