package element

import (
	"context"
	"reflect"
	"testing"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmd/flagtest"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// flagCase is a command line and the options it parses to; a nil want
// means the command line is refused.
type flagCase[O any] struct {
	name string
	args []string
	want *O
}

// checkFlags runs each case through newCmd's runF. The options' Deps,
// from the factory, must be set; they are cleared so that the rest
// compares with the case.
func checkFlags[O any](t *testing.T, newCmd func(*cmdutil.Factory, func(context.Context, *O) error) *cobra.Command, deps func(*O) *cmdutil.Deps, cases []flagCase[O]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := flagtest.Parse(newCmd, tc.args...)
			switch {
			case tc.want == nil:
				if !flagtest.Refused(got, err) {
					t.Fatalf("%v, ran %v; want the command line refused", err, got != nil)
				}
			case err != nil:
				t.Fatalf("refused: %v", err)
			case !hasDeps(deps(got)):
				t.Fatal("the options lack what the command needs from the factory")
			case !reflect.DeepEqual(*got, *tc.want):
				t.Fatalf("options %+v, want %+v", *got, *tc.want)
			}
		})
	}
}

// hasDeps reports whether d is all set, and clears it.
func hasDeps(d *cmdutil.Deps) bool {
	ok := d.IO != nil && d.Client != nil && d.Printer != nil && d.Mode != nil
	*d = cmdutil.Deps{}
	return ok
}

func TestCreateFlags(t *testing.T) {
	checkFlags(t, NewCmdCreate, func(o *CreateOptions) *cmdutil.Deps { return &o.Deps }, []flagCase[CreateOptions]{
		{"code", []string{"P-1"}, &CreateOptions{Code: "P-1"}},
		{"all flags", []string{"P-1", "--description", "Site", "--inactive", "--org", "company=1000", "--org", "branch=B1"},
			&CreateOptions{Code: "P-1", Texts: wbsfile.Texts{Description: sdk.Ptr("Site")}, Inactive: true, Orgs: []string{"company=1000", "branch=B1"}}},
		{"empty description is given", []string{"P-1", "--description", ""}, &CreateOptions{Code: "P-1", Texts: wbsfile.Texts{Description: sdk.Ptr("")}}},
		{"from file", []string{"--from-file", "-"}, &CreateOptions{FromFile: "-"}},
		{"neither", nil, nil},
		{"both", []string{"P-1", "--from-file", "e.json"}, nil},
		{"two codes", []string{"P-1", "P-2"}, nil},
		{"unknown flag", []string{"P-1", "--colour"}, nil},
	})
}

func TestUpdateFlags(t *testing.T) {
	checkFlags(t, NewCmdUpdate, func(o *UpdateOptions) *cmdutil.Deps { return &o.Deps }, []flagCase[UpdateOptions]{
		{"description", []string{"P-1", "--description", "New"}, &UpdateOptions{Code: "P-1", Texts: wbsfile.Texts{Description: sdk.Ptr("New")}}},
		{"clear and activate", []string{"P-1", "--clear-description", "--active"}, &UpdateOptions{Code: "P-1", Clear: []string{"description"}, Active: true}},
		{"orgs", []string{"P-1", "--org", "company=1000"}, &UpdateOptions{Code: "P-1", Orgs: []string{"company=1000"}}},
		{"from file", []string{"P-1", "--from-file", "u.json"}, &UpdateOptions{Code: "P-1", FromFile: "u.json"}},
		{"no code", nil, nil},
		{"description and clear", []string{"P-1", "--description", "x", "--clear-description"}, nil},
		{"active and inactive", []string{"P-1", "--active", "--inactive"}, nil},
		{"from file and description", []string{"P-1", "--from-file", "u.json", "--description", "x"}, nil},
	})
}

func TestDeleteFlags(t *testing.T) {
	checkFlags(t, NewCmdDelete, func(o *DeleteOptions) *cmdutil.Deps { return &o.Deps }, []flagCase[DeleteOptions]{
		{"codes", []string{"P-1", "P-2"}, &DeleteOptions{Codes: []string{"P-1", "P-2"}}},
		{"no code", nil, nil},
	})
}

func TestOrgRemoveFlags(t *testing.T) {
	checkFlags(t, NewCmdOrgRemove, func(o *OrgRemoveOptions) *cmdutil.Deps { return &o.Deps }, []flagCase[OrgRemoveOptions]{
		{"links", []string{"P-1", "company=1000", "branch=B1"}, &OrgRemoveOptions{Code: "P-1", Orgs: []string{"company=1000", "branch=B1"}}},
		{"no link", []string{"P-1"}, nil},
	})
}

func TestListFlags(t *testing.T) {
	strip := func(o *ListOptions) *cmdutil.Deps { return &o.Deps }
	checkFlags(t, NewCmdList, strip, []flagCase[ListOptions]{
		{"defaults", nil, &ListOptions{Page: 1, MaxPages: 100000}},
		{"page", []string{"--page", "3", "--page-size", "50"}, &ListOptions{Page: 3, PageSize: 50, MaxPages: 100000, pageSizeSet: true}},
		{"all", []string{"--all", "--max-pages", "7"}, &ListOptions{Page: 1, All: true, MaxPages: 7}},
		{"limit", []string{"-L", "25"}, &ListOptions{Page: 1, Limit: 25, MaxPages: 100000}},
		{"page 0", []string{"--page", "0"}, nil},
		{"page size 0", []string{"--page-size", "0"}, nil},
		{"negative limit", []string{"--limit", "-1"}, nil},
		{"max pages 0", []string{"--all", "--max-pages", "0"}, nil},
		{"all and limit", []string{"--all", "--limit", "5"}, nil},
		{"an argument", []string{"P-1"}, nil},
		{"code patterns", []string{"--all", "--code", "P-1*", "--code", "a,b"}, &ListOptions{Page: 1, All: true, MaxPages: 100000, CodePatterns: []string{"P-1*", "a,b"}}},
		{"active", []string{"--active", "-L", "3"}, &ListOptions{Page: 1, Limit: 3, MaxPages: 100000, Active: true}},
		{"inactive", []string{"--inactive"}, &ListOptions{Page: 1, MaxPages: 100000, Inactive: true}},
		{"active and inactive", []string{"--active", "--inactive"}, nil},
		{"bad pattern", []string{"--code", "P-[1"}, nil},
	})
	checkFlags(t, NewCmdOrgList, strip, []flagCase[ListOptions]{
		{"org list", []string{"P-1", "--all"}, &ListOptions{Code: "P-1", Page: 1, All: true, MaxPages: 100000}},
		{"org list without code", nil, nil},
		{"org list has no filter", []string{"P-1", "--code", "x"}, nil},
	})
}

func TestViewFlags(t *testing.T) {
	checkFlags(t, NewCmdView, func(o *ViewOptions) *cmdutil.Deps { return &o.Deps }, []flagCase[ViewOptions]{
		{"codes", []string{"P-1", "P-2", "P-1"}, &ViewOptions{Codes: []string{"P-1", "P-2", "P-1"}}},
		{"quiet", []string{"-q", "P-1"}, &ViewOptions{Codes: []string{"P-1"}, Quiet: true}},
		{"no code", nil, nil},
		{"no list flags", []string{"P-1", "--all"}, nil},
	})
}
