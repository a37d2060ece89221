// Package credentials keeps secrets in the OS keyring (or, where the user
// chose it, a 0600 file) and access tokens in a 0600 cache file.
package credentials

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/wbsctl/wbsctl/internal/config"
	"github.com/wbsctl/wbsctl/internal/filelock"
	"github.com/wbsctl/wbsctl/sdk"
	"github.com/zalando/go-keyring"
)

// Service is the keyring service of wbsctl's secrets.
const Service = "wbsctl"

// Account names a secret in a store: scoped by client id and base URL, so
// that profiles for two platforms never read each other's secret.
func Account(clientID, baseURL string) string { return clientID + "@" + baseURL }

// Store keeps secrets.
type Store interface {
	Get(account string) (string, error)
	Set(account, secret string) error
	Delete(account string) error
}

// ErrNotFound: the store holds no secret for the account.
var ErrNotFound = errors.New("no secret stored")

// keyringUnavailable is what ErrKeyringUnavailable says before its advice.
const keyringUnavailable = "the OS keyring is not available (no D-Bus session)"

// ErrKeyringUnavailable: no Secret Service (or equivalent) can be reached.
var ErrKeyringUnavailable = errors.New(keyringUnavailable + "; " +
	"set WBSCTL_CLIENT_ID and WBSCTL_CLIENT_SECRET in the environment instead, " +
	"or log in with --insecure-storage to keep the secret in a 0600 file")

// WithoutAdvice is err's message with the advice of ErrKeyringUnavailable
// left out, for a message that gives the ways out itself and would
// otherwise say them twice.
func WithoutAdvice(err error) string {
	if errors.Is(err, ErrKeyringUnavailable) {
		return strings.Replace(err.Error(), ErrKeyringUnavailable.Error(), keyringUnavailable, 1)
	}
	return err.Error()
}

// Keyring is the OS keyring through github.com/zalando/go-keyring, every
// call bounded by Timeout: a locked collection can make it wait forever.
type Keyring struct {
	Timeout time.Duration
	// Getenv reads the environment; on Linux, without a D-Bus session
	// the keyring is not called at all, so that no dbus-daemon is
	// started on the user's behalf.
	Getenv func(string) string
	// Backend replaces go-keyring in tests.
	Backend Store
}

func (k Keyring) backend() Store {
	if k.Backend != nil {
		return k.Backend
	}
	return goKeyring{}
}

type goKeyring struct{}

func (goKeyring) Get(account string) (string, error) { return keyring.Get(Service, account) }
func (goKeyring) Set(account, secret string) error   { return keyring.Set(Service, account, secret) }
func (goKeyring) Delete(account string) error        { return keyring.Delete(Service, account) }

func (k Keyring) call(fn func() error) error {
	if k.Backend == nil && runtime.GOOS == "linux" && k.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return ErrKeyringUnavailable
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	t := time.NewTimer(k.Timeout)
	defer t.Stop()
	select {
	case err := <-done:
		if errors.Is(err, keyring.ErrNotFound) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("OS keyring: %w", err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("OS keyring: no answer within %v (a locked collection?); set WBSCTL_KEYRING_TIMEOUT, or use environment variables", k.Timeout)
	}
}

// Get reads a secret.
func (k Keyring) Get(account string) (string, error) {
	var s string
	err := k.call(func() (err error) { s, err = k.backend().Get(account); return err })
	return s, err
}

// Set stores a secret.
func (k Keyring) Set(account, secret string) error {
	return k.call(func() error { return k.backend().Set(account, secret) })
}

// Delete removes a secret.
func (k Keyring) Delete(account string) error {
	return k.call(func() error { return k.backend().Delete(account) })
}

// File keeps secrets in a JSON file of mode 0600: only for users who chose
// --insecure-storage.
type File struct {
	Path string
	mu   sync.Mutex
}

func (f *File) load() (map[string]string, error) {
	m := map[string]string{}
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	return m, json.Unmarshal(b, &m)
}

// Get reads a secret.
func (f *File) Get(account string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return "", err
	}
	s, ok := m[account]
	if !ok {
		return "", ErrNotFound
	}
	return s, nil
}

// Set stores a secret.
func (f *File) Set(account, secret string) error {
	return f.update(func(m map[string]string) { m[account] = secret })
}

// Delete removes a secret.
func (f *File) Delete(account string) error {
	return f.update(func(m map[string]string) { delete(m, account) })
}

func (f *File) update(change func(map[string]string)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	change(m)
	b, _ := json.Marshal(m)
	return config.WriteFileAtomic(f.Path, b)
}

// TokenFile is an sdk.TokenCache in a 0600 file, so that a script of many
// wbsctl commands makes one token exchange. Processes that share it (CI
// jobs on one machine) take turns to rewrite it, under a lock of the file
// (Path.lock), so that none drops another's entry; a read needs no lock,
// since the file is replaced whole.
type TokenFile struct {
	Path string
	mu   sync.Mutex
}

type tokenEntry struct {
	BaseURL  string `json:"baseUrl"`
	ClientID string `json:"clientId"`
	// SecretDigest ties the token to the secret it was issued for (see
	// sdk.SecretDigest).
	SecretDigest string    `json:"secretDigest"`
	Token        sdk.Token `json:"token"`
}

// of reports whether e is a token of the credential of k, whatever its
// secret.
func (e tokenEntry) of(k sdk.TokenCacheKey) bool {
	return e.BaseURL == k.BaseURL && e.ClientID == k.ClientID
}

func (t *TokenFile) load() []tokenEntry {
	var es []tokenEntry
	if b, err := os.ReadFile(t.Path); err == nil {
		_ = json.Unmarshal(b, &es) // a damaged cache is an empty one
	}
	return es
}

// Get returns the cached token of the key, issued for the key's secret.
func (t *TokenFile) Get(_ context.Context, k sdk.TokenCacheKey) (sdk.Token, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.load() {
		if e.of(k) && e.SecretDigest == k.SecretDigest {
			return e.Token, true, nil
		}
	}
	return sdk.Token{}, false, nil
}

// Put stores the token of the key, in place of any of the same credential
// (an older secret's included), dropping expired entries.
func (t *TokenFile) Put(_ context.Context, k sdk.TokenCacheKey, tok sdk.Token) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	unlock, err := t.lock()
	if err != nil {
		return err
	}
	defer unlock()
	now := time.Now()
	kept := []tokenEntry{{BaseURL: k.BaseURL, ClientID: k.ClientID, SecretDigest: k.SecretDigest, Token: tok}}
	for _, e := range t.load() {
		if !e.of(k) && e.Token.Valid(now) {
			kept = append(kept, e)
		}
	}
	b, _ := json.Marshal(kept)
	return config.WriteFileAtomic(t.Path, b)
}

// Remove drops the tokens of the key's credential, whatever secret they
// were issued for.
func (t *TokenFile) Remove(k sdk.TokenCacheKey) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	unlock, err := t.lock()
	if err != nil {
		return err
	}
	defer unlock()
	var kept []tokenEntry
	for _, e := range t.load() {
		if !e.of(k) {
			kept = append(kept, e)
		}
	}
	b, _ := json.Marshal(kept)
	return config.WriteFileAtomic(t.Path, b)
}

// lock takes the file's lock between processes, making its folder first.
func (t *TokenFile) lock() (func(), error) {
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return nil, err
	}
	return filelock.Lock(t.Path)
}

// CacheDir is wbsctl's cache folder: $XDG_CACHE_HOME/wbsctl, else the OS's.
func CacheDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "wbsctl"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "wbsctl"), nil
}
