package element

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

// parse runs cmd's flag parsing and argument checks with args; the runF
// given to the command records the options instead of running.
func parse(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	_, err := cmd.ExecuteC()
	return err
}

func testFactory() *cmdutil.Factory {
	streams, _, _, _ := iostreams.Test()
	return cmdutil.New(streams)
}

// wantUsage fails unless err refuses the command line when want is set
// (an argument count is a usage error; a flag error is one at the root,
// which tells errors before any command ran from the others), or is nil
// when it is not.
func wantUsage(t *testing.T, err error, want bool) {
	t.Helper()
	var usage *cmdutil.UsageError
	switch {
	case want && err == nil:
		t.Fatal("accepted, want a usage error")
	case want && strings.Contains(err.Error(), "arg(s)") && !errors.As(err, &usage):
		t.Fatalf("error %v (exit %d), want a usage error", err, cmdutil.ExitCode(err))
	case !want && err != nil:
		t.Fatalf("refused: %v", err)
	}
}

func TestCreateFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool
		want  CreateOptions
	}{
		{"code", []string{"P-1"}, false, CreateOptions{Code: "P-1"}},
		{"all flags", []string{"P-1", "--description", "Site", "--inactive", "--org", "company=1000", "--org", "branch=B1"}, false,
			CreateOptions{Code: "P-1", Description: "Site", HasDesc: true, Inactive: true, Orgs: []string{"company=1000", "branch=B1"}}},
		{"empty description is given", []string{"P-1", "--description", ""}, false, CreateOptions{Code: "P-1", HasDesc: true}},
		{"from file", []string{"--from-file", "-"}, false, CreateOptions{FromFile: "-"}},
		{"neither", nil, true, CreateOptions{}},
		{"both", []string{"P-1", "--from-file", "e.json"}, true, CreateOptions{}},
		{"two codes", []string{"P-1", "P-2"}, true, CreateOptions{}},
		{"unknown flag", []string{"P-1", "--colour"}, true, CreateOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *CreateOptions
			err := parse(NewCmdCreate(testFactory(), func(_ context.Context, o *CreateOptions) error { got = o; return nil }), tc.args...)
			wantUsage(t, err, tc.usage)
			if tc.usage {
				return
			}
			if got.Client == nil || got.Printer == nil || got.IO == nil || got.Structured == nil {
				t.Fatal("the options lack what the command needs from the factory")
			}
			got.IO, got.Client, got.Printer, got.Structured = nil, nil, nil, nil
			if !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("options %+v, want %+v", *got, tc.want)
			}
		})
	}
}

func TestUpdateFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool
		want  UpdateOptions
	}{
		{"description", []string{"P-1", "--description", "New"}, false, UpdateOptions{Code: "P-1", Description: "New", HasDesc: true}},
		{"clear and activate", []string{"P-1", "--clear-description", "--active"}, false, UpdateOptions{Code: "P-1", ClearDescription: true, Active: true}},
		{"orgs", []string{"P-1", "--org", "company=1000"}, false, UpdateOptions{Code: "P-1", Orgs: []string{"company=1000"}}},
		{"from file", []string{"P-1", "--from-file", "u.json"}, false, UpdateOptions{Code: "P-1", FromFile: "u.json"}},
		{"no code", nil, true, UpdateOptions{}},
		{"description and clear", []string{"P-1", "--description", "x", "--clear-description"}, true, UpdateOptions{}},
		{"active and inactive", []string{"P-1", "--active", "--inactive"}, true, UpdateOptions{}},
		{"from file and description", []string{"P-1", "--from-file", "u.json", "--description", "x"}, true, UpdateOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *UpdateOptions
			err := parse(NewCmdUpdate(testFactory(), func(_ context.Context, o *UpdateOptions) error { got = o; return nil }), tc.args...)
			wantUsage(t, err, tc.usage)
			if tc.usage {
				return
			}
			got.IO, got.Client, got.Printer, got.Structured = nil, nil, nil, nil
			if !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("options %+v, want %+v", *got, tc.want)
			}
		})
	}
}

func TestDeleteAndOrgRemoveFlags(t *testing.T) {
	var del *DeleteOptions
	err := parse(NewCmdDelete(testFactory(), func(_ context.Context, o *DeleteOptions) error { del = o; return nil }), "P-1", "P-2")
	wantUsage(t, err, false)
	if !reflect.DeepEqual(del.Codes, []string{"P-1", "P-2"}) {
		t.Fatalf("codes %v", del.Codes)
	}
	wantUsage(t, parse(NewCmdDelete(testFactory(), func(context.Context, *DeleteOptions) error { return nil })), true)

	var rm *OrgRemoveOptions
	err = parse(NewCmdOrgRemove(testFactory(), func(_ context.Context, o *OrgRemoveOptions) error { rm = o; return nil }), "P-1", "company=1000", "branch=B1")
	wantUsage(t, err, false)
	if rm.Code != "P-1" || !reflect.DeepEqual(rm.Orgs, []string{"company=1000", "branch=B1"}) {
		t.Fatalf("options %+v", rm)
	}
	wantUsage(t, parse(NewCmdOrgRemove(testFactory(), func(context.Context, *OrgRemoveOptions) error { return nil }), "P-1"), true)
}

func TestListFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cmd   func(*cmdutil.Factory, func(context.Context, *ListOptions) error) *cobra.Command
		args  []string
		usage bool
		want  ListOptions
	}{
		{"defaults", NewCmdList, nil, false, ListOptions{Page: 1, MaxPages: 100000}},
		{"page", NewCmdList, []string{"--page", "3", "--page-size", "50"}, false, ListOptions{Page: 3, PageSize: 50, MaxPages: 100000, pageSizeSet: true}},
		{"all", NewCmdList, []string{"--all", "--max-pages", "7"}, false, ListOptions{Page: 1, All: true, MaxPages: 7}},
		{"limit", NewCmdList, []string{"-L", "25"}, false, ListOptions{Page: 1, Limit: 25, MaxPages: 100000}},
		{"page 0", NewCmdList, []string{"--page", "0"}, true, ListOptions{}},
		{"page size 0", NewCmdList, []string{"--page-size", "0"}, true, ListOptions{}},
		{"negative limit", NewCmdList, []string{"--limit", "-1"}, true, ListOptions{}},
		{"max pages 0", NewCmdList, []string{"--all", "--max-pages", "0"}, true, ListOptions{}},
		{"all and limit", NewCmdList, []string{"--all", "--limit", "5"}, true, ListOptions{}},
		{"an argument", NewCmdList, []string{"P-1"}, true, ListOptions{}},
		{"org list", NewCmdOrgList, []string{"P-1", "--all"}, false, ListOptions{Code: "P-1", Page: 1, All: true, MaxPages: 100000}},
		{"org list without code", NewCmdOrgList, nil, true, ListOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *ListOptions
			err := parse(tc.cmd(testFactory(), func(_ context.Context, o *ListOptions) error { got = o; return nil }), tc.args...)
			wantUsage(t, err, tc.usage)
			if tc.usage {
				return
			}
			got.IO, got.Client, got.Printer, got.Structured = nil, nil, nil, nil
			if !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("options %+v, want %+v", *got, tc.want)
			}
		})
	}
}
