package credentials

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
)

type blocking struct{ release chan struct{} }

func (b blocking) Get(string) (string, error) { <-b.release; return "", nil }
func (b blocking) Set(string, string) error   { <-b.release; return nil }
func (b blocking) Delete(string) error        { <-b.release; return nil }

func TestKeyringCallsTimeOut(t *testing.T) {
	b := blocking{release: make(chan struct{})}
	defer close(b.release)
	k := Keyring{Timeout: 10 * time.Millisecond, Getenv: func(string) string { return "" }, Backend: b}
	if _, err := k.Get("a"); err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err = %v", err)
	}
}

func TestKeyringWithoutDBusNamesTheWaysOut(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the D-Bus check is Linux's")
	}
	k := Keyring{Timeout: time.Second, Getenv: func(string) string { return "" }}
	err := k.Set("a", "s")
	if !errors.Is(err, ErrKeyringUnavailable) || !strings.Contains(err.Error(), "WBSCTL_CLIENT_SECRET") || !strings.Contains(err.Error(), "--insecure-storage") {
		t.Fatalf("err = %v", err)
	}
}

func TestFileStoreAndTokenCacheAre0600(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wbsctl")
	f := &File{Path: filepath.Join(dir, "secrets.json")}
	if err := f.Set(Account("id", "https://a"), "s1"); err != nil {
		t.Fatal(err)
	}
	if s, err := f.Get(Account("id", "https://a")); err != nil || s != "s1" {
		t.Fatalf("%q %v", s, err)
	}
	if _, err := f.Get(Account("id", "https://b")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another platform's secret: %v", err)
	}
	tf := &TokenFile{Path: filepath.Join(dir, "tokens.json")}
	key := sdk.TokenCacheKey{BaseURL: "https://a", ClientID: "id", SecretDigest: sdk.SecretDigest("s1")}
	tok := sdk.Token{AccessToken: "t", ExpiresAt: time.Now().Add(time.Hour)}
	if err := tf.Put(context.Background(), key, tok); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := tf.Get(context.Background(), key); !ok || got.AccessToken != "t" {
		t.Fatalf("token cache: %v %v", got, ok)
	}
	other := key
	other.SecretDigest = sdk.SecretDigest("s2")
	if _, ok, _ := tf.Get(context.Background(), other); ok {
		t.Fatal("a token issued for one secret was handed out for another")
	}
	if b, _ := os.ReadFile(tf.Path); strings.Contains(string(b), "s1") {
		t.Fatalf("the cache file holds the secret: %s", b)
	}
	for _, p := range []string{f.Path, tf.Path} {
		st, _ := os.Stat(p)
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("%s has mode %v", p, st.Mode().Perm())
		}
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v", st.Mode().Perm())
	}
}

// A symbolic link planted as the token cache's lock is refused, naming
// it, and no file is created where it points.
func TestTokenCacheLockIsNeverFollowed(t *testing.T) {
	dir := t.TempDir()
	tf := &TokenFile{Path: filepath.Join(dir, "tokens.json")}
	victim := filepath.Join(dir, "victim")
	if err := os.Symlink(victim, tf.Path+".lock"); err != nil {
		t.Fatal(err)
	}
	key := sdk.TokenCacheKey{BaseURL: "https://a", ClientID: "id", SecretDigest: sdk.SecretDigest("s1")}
	err := tf.Put(context.Background(), key, sdk.Token{AccessToken: "t", ExpiresAt: time.Now().Add(time.Hour)})
	if err == nil || !strings.Contains(err.Error(), tf.Path+".lock is a symbolic link") {
		t.Fatalf("Put: %v", err)
	}
	if _, err := os.Lstat(victim); err == nil {
		t.Fatal("a file was created where the link points")
	}
}
