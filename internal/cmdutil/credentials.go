package cmdutil

import (
	"cmp"
	"fmt"
	"path/filepath"
	"time"

	"github.com/wbsctl/wbsctl/internal/config"
	"github.com/wbsctl/wbsctl/internal/credentials"
	"github.com/wbsctl/wbsctl/sdk"
)

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
	// CAFile holds extra certificate authorities to trust: --ca-file,
	// WBSCTL_CA_FILE, or the profile's; "" when none.
	CAFile string
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
	c.CAFile = cmp.Or(f.Global.CAFile, f.Getenv("WBSCTL_CA_FILE"), prof.CAFile)
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

// Profiles is what the auth commands use of the Factory beside Deps: the
// configuration file, the credentials resolved, where secrets and tokens
// are kept, and a client for credentials not yet saved.
type Profiles struct {
	Config      func() (*config.Config, string, error)
	ProfileName func(*config.Config) string
	Resolve     func() (*Credentials, error)
	ClientFor   func(*Credentials, ...sdk.Option) (*sdk.Client, error)
	SecretStore func(storage, configDir string) credentials.Store
	TokenCache  func() (*credentials.TokenFile, error)
}

// Profiles returns the Factory's profile functions.
func (f *Factory) Profiles() Profiles {
	return Profiles{Config: f.Config, ProfileName: f.ProfileName, Resolve: f.Resolve, ClientFor: f.ClientFor,
		SecretStore: f.SecretStore, TokenCache: f.TokenCache}
}
