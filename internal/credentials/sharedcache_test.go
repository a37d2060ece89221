package credentials

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
)

// Processes that share one token cache, as CI jobs on one machine do,
// each put tokens of their own while the others do: every entry is kept.
// Without the lock between processes, a read-modify-write drops the
// entries another process wrote in between.
func TestProcessesShareOneTokenCache(t *testing.T) {
	if os.Getenv("WBSCTL_TOKEN_CACHE_WRITER") != "" {
		return // the writer's work is in TestMain
	}
	path := filepath.Join(t.TempDir(), "tokens.json")
	const procs, each = 8, 25
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run", "^TestProcessesShareOneTokenCache$")
		cmds[i].Env = append(os.Environ(), "WBSCTL_TOKEN_CACHE_WRITER="+strconv.Itoa(i), "WBSCTL_TOKEN_CACHE="+path, "WBSCTL_TOKEN_CACHE_EACH="+strconv.Itoa(each))
		cmds[i].Stderr = os.Stderr
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	f := &TokenFile{Path: path}
	missing := 0
	for i := range procs {
		for j := range each {
			if _, ok, _ := f.Get(context.Background(), writerKey(i, j)); !ok {
				missing++
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d tokens lost", missing, procs*each)
	}
}

func writerKey(i, j int) sdk.TokenCacheKey {
	return sdk.TokenCacheKey{BaseURL: "https://platform.example", ClientID: fmt.Sprintf("client-%d-%d", i, j), SecretDigest: "d"}
}

func TestMain(m *testing.M) {
	if w := os.Getenv("WBSCTL_TOKEN_CACHE_WRITER"); w != "" {
		i, _ := strconv.Atoi(w)
		each, _ := strconv.Atoi(os.Getenv("WBSCTL_TOKEN_CACHE_EACH"))
		f := &TokenFile{Path: os.Getenv("WBSCTL_TOKEN_CACHE")}
		tok := sdk.Token{AccessToken: "t", ExpiresAt: time.Now().Add(time.Hour)}
		for j := range each {
			if err := f.Put(context.Background(), writerKey(i, j), tok); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
