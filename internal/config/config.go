// Package config reads and writes wbsctl's profiles:
// $XDG_CONFIG_HOME/wbsctl/config.yaml, written 0600 in a 0700 folder,
// atomically. It holds no secret.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"gopkg.in/yaml.v3"
)

// Profile is one platform and credential. The secret is kept elsewhere:
// in the OS keyring, or (SecretStorage "file") in a 0600 file.
type Profile struct {
	BaseURL       string `yaml:"base_url"`
	ClientID      string `yaml:"client_id"`
	SecretStorage string `yaml:"secret_storage"`
	// ClientCert and ClientKey are the files of a client certificate for
	// mutual TLS, as given at login.
	ClientCert string `yaml:"client_cert,omitempty"`
	ClientKey  string `yaml:"client_key,omitempty"`
	// CAFile is the file of extra certificate authorities of --ca-file,
	// as given at login.
	CAFile string `yaml:"ca_file,omitempty"`
}

// Secret storages.
const (
	StorageKeyring = "keyring"
	StorageFile    = "file"
)

// Config is the whole file.
type Config struct {
	CurrentProfile string             `yaml:"current_profile,omitempty"`
	Profiles       map[string]Profile `yaml:"profiles,omitempty"`
}

// Dir is wbsctl's configuration folder: $XDG_CONFIG_HOME/wbsctl, else the
// OS's user configuration folder.
func Dir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "wbsctl"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "wbsctl"), nil
}

// Load reads the configuration in dir; a missing file is an empty one.
func Load(dir string) (*Config, error) {
	c := &Config{Profiles: map[string]Profile{}}
	b, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "config.yaml"), err)
	}
	if c.Profiles == nil {
		c.Profiles = map[string]Profile{}
	}
	return c, nil
}

// Save writes the configuration to dir.
func (c *Config) Save(dir string) error {
	b, err := yaml.Marshal(c)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, "config.yaml"), b)
}

// WriteFileAtomic writes data to path through a temporary file and a
// rename, so that a reader never sees half a file, with mode 0600 in a
// folder of mode 0700.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}
