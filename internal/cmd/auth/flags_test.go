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
			got.IO != streams || got.ClientFor == nil || got.SecretStore == nil || got.ReadSecret == nil):
			t.Errorf("%v: %v, options %+v", tc.args, err, got)
		}
	}
}

func TestStatusLogoutTokenFlags(t *testing.T) {
	st, _, err := flagtest.Parse(NewCmdStatus, "--json")
	if err != nil || !st.JSON || st.Resolve == nil || st.TokenCache == nil || st.Printer == nil {
		t.Fatalf("status --json: %v, %+v", err, st)
	}
	if st, _, err := flagtest.Parse(NewCmdStatus); err != nil || st.JSON {
		t.Fatalf("status: %v, %+v", err, st)
	}
	if st, err := firstOf(flagtest.Parse(NewCmdStatus, "extra")); !flagtest.Refused(st, err) {
		t.Fatalf("status extra: %v", err)
	}
	lo, _, err := flagtest.Parse(NewCmdLogout)
	if err != nil || lo.Config == nil || lo.SecretStore == nil || lo.TokenCache == nil || lo.ProfileName == nil {
		t.Fatalf("logout: %v, %+v", err, lo)
	}
	if lo, err := firstOf(flagtest.Parse(NewCmdLogout, "default")); !flagtest.Refused(lo, err) {
		t.Fatalf("logout default: %v", err)
	}
	tok, _, err := flagtest.Parse(NewCmdToken)
	if err != nil || tok.Client == nil || tok.IO == nil {
		t.Fatalf("token: %v, %+v", err, tok)
	}
	if tok, err := firstOf(flagtest.Parse(NewCmdToken, "--json")); !flagtest.Refused(tok, err) {
		t.Fatalf("token --json: %v", err)
	}
}

// firstOf drops the streams of flagtest.Parse.
func firstOf[O, S any](o *O, _ S, err error) (*O, error) { return o, err }
