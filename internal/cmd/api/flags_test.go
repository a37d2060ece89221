package api

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func TestAPIFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool
		check func(*Options) bool
	}{
		{"get", []string{"/v1/wbs-elements"}, false, func(o *Options) bool {
			return o.Path == "/v1/wbs-elements" && o.Method == "GET" && o.PageSize == 100 && o.Rate == "0"
		}},
		{"fields make a POST", []string{"/v1/wbs-elements", "-f", "wbsElementCode=P-1", "-F", "isActive=true"}, false, func(o *Options) bool {
			return o.Method == "POST" && slices.Equal(o.RawFields, []string{"wbsElementCode=P-1"}) && slices.Equal(o.Fields, []string{"isActive=true"})
		}},
		{"method given", []string{"-X", "PUT", "/v1/wbs-elements/P-1", "-F", "isActive=false"}, false, func(o *Options) bool { return o.Method == "PUT" }},
		{"input makes a POST", []string{"/x", "--input", "-"}, false, func(o *Options) bool { return o.Method == "POST" && o.Input == "-" }},
		{"paginate", []string{"/v1/wbs-elements", "--paginate", "--slurp", "--page-size", "50", "-H", "X-A: 1", "-i", "--retry-safe"}, false, func(o *Options) bool {
			return o.Paginate && o.Slurp && o.PageSize == 50 && slices.Equal(o.Headers, []string{"X-A: 1"}) && o.Include && o.RetrySafe
		}},
		{"no path", nil, true, nil},
		{"two paths", []string{"/a", "/b"}, true, nil},
		{"slurp without paginate", []string{"/a", "--slurp"}, true, nil},
		{"input and fields", []string{"/a", "--input", "f", "-f", "a=b"}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			streams, _, _, _ := iostreams.Test()
			var got *Options
			cmd := NewCmdAPI(cmdutil.New(streams), func(_ context.Context, o *Options) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			var usage *cmdutil.UsageError
			if tc.usage {
				if !errors.As(err, &usage) || got != nil {
					t.Fatalf("%v, ran %v; want a usage error", err, got != nil)
				}
				return
			}
			if err != nil || !tc.check(got) {
				t.Fatalf("%v, options %+v", err, got)
			}
		})
	}
}
