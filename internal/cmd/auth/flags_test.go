package auth

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func TestLoginFlags(t *testing.T) {
	for _, tc := range []struct {
		args                   []string
		usage                  bool
		stdin, insecureStorage bool
	}{
		{nil, false, false, false},
		{[]string{"--with-secret-stdin"}, false, true, false},
		{[]string{"--with-secret-stdin", "--insecure-storage"}, false, true, true},
		{[]string{"secret-as-an-argument"}, true, false, false},
	} {
		streams, _, _, _ := iostreams.Test()
		var got *LoginOptions
		cmd := NewCmdLogin(cmdutil.New(streams), func(_ context.Context, o *LoginOptions) error { got = o; return nil })
		cmd.SetArgs(tc.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		var usage *cmdutil.UsageError
		if tc.usage {
			if !errors.As(err, &usage) || got != nil {
				t.Errorf("%v: %v, ran %v; want a usage error", tc.args, err, got != nil)
			}
			continue
		}
		if err != nil || got.WithSecretStdin != tc.stdin || got.InsecureStorage != tc.insecureStorage ||
			got.IO != streams || got.Global == nil || got.ClientFor == nil || got.SecretStore == nil || got.ReadSecret == nil {
			t.Errorf("%v: %v, options %+v", tc.args, err, got)
		}
	}
}
