package api

import (
	"slices"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/flagtest"
)

func TestAPIFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(*Options) bool // nil: the command line is refused
	}{
		{"get", []string{"/v1/wbs-elements"}, func(o *Options) bool {
			return o.Path == "/v1/wbs-elements" && o.Method == "GET" && o.PageSize == 0 && o.MaxPages == defaultMaxPages && o.Rate == "0"
		}},
		{"method upper-cased", []string{"-X", "get", "/v1/wbs-elements", "-f", "a=b"}, func(o *Options) bool { return o.Method == "GET" }},
		{"fields make a POST", []string{"/v1/wbs-elements", "-f", "wbsElementCode=P-1", "-F", "isActive=true"}, func(o *Options) bool {
			return o.Method == "POST" && slices.Equal(o.RawFields, []string{"wbsElementCode=P-1"}) && slices.Equal(o.Fields, []string{"isActive=true"})
		}},
		{"method given", []string{"-X", "PUT", "/v1/wbs-elements/P-1", "-F", "isActive=false"}, func(o *Options) bool { return o.Method == "PUT" }},
		{"input makes a POST", []string{"/x", "--input", "-"}, func(o *Options) bool { return o.Method == "POST" && o.Input == "-" }},
		{"paginate", []string{"/v1/wbs-elements", "--paginate", "--slurp", "--page-size", "50", "-H", "X-A: 1", "-i", "--retry-safe"}, func(o *Options) bool {
			return o.Paginate && o.Slurp && o.PageSize == 50 && slices.Equal(o.Headers, []string{"X-A: 1"}) && o.Include && o.RetrySafe
		}},
		{"no path", nil, nil},
		{"two paths", []string{"/a", "/b"}, nil},
		{"slurp without paginate", []string{"/a", "--slurp"}, nil},
		{"input and fields", []string{"/a", "--input", "f", "-f", "a=b"}, nil},
		{"max pages", []string{"/a", "--paginate", "--max-pages", "7", "--page-size", "3"}, func(o *Options) bool { return o.MaxPages == 7 && o.PageSize == 3 }},
		{"max pages below 1", []string{"/a", "--paginate", "--max-pages", "0"}, nil},
		{"paginate a POST", []string{"-X", "POST", "/a", "--paginate"}, nil},
		{"paginate with fields and no -X", []string{"/a", "--paginate", "-f", "pageNumber=2"}, nil},
		{"paginate with fields as the query", []string{"-X", "GET", "/a", "--paginate", "-f", "pageNumber=2"}, func(o *Options) bool { return o.Method == "GET" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, streams, err := flagtest.Parse(NewCmdAPI, tc.args...)
			switch {
			case tc.check == nil && !flagtest.Refused(got, err):
				t.Fatalf("%v, ran %v; want the command line refused", err, got != nil)
			case tc.check != nil && (err != nil || !tc.check(got) || got.IO != streams || got.Client == nil):
				t.Fatalf("%v, options %+v", err, got)
			}
		})
	}
}
