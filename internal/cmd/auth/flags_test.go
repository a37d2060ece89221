package auth

import (
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/flagtest"
)

func TestLoginFlags(t *testing.T) {
	for _, tc := range []struct {
		args                   []string
		refused                bool
		stdin, insecureStorage bool
	}{
		{nil, false, false, false},
		{[]string{"--with-secret-stdin"}, false, true, false},
		{[]string{"--with-secret-stdin", "--insecure-storage"}, false, true, true},
		{[]string{"secret-as-an-argument"}, true, false, false},
	} {
		got, streams, err := flagtest.Parse(NewCmdLogin, tc.args...)
		switch {
		case tc.refused && !flagtest.Refused(got, err):
			t.Errorf("%v: %v, ran %v; want the command line refused", tc.args, err, got != nil)
		case !tc.refused && (err != nil || got.WithSecretStdin != tc.stdin || got.InsecureStorage != tc.insecureStorage ||
			got.IO != streams || got.Global == nil || got.ClientFor == nil || got.SecretStore == nil || got.ReadSecret == nil):
			t.Errorf("%v: %v, options %+v", tc.args, err, got)
		}
	}
}
