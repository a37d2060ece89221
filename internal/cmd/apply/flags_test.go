package apply

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func TestApplyFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool
		check func(*Options) bool
	}{
		{"defaults", []string{"-f", "e.csv"}, false, func(o *Options) bool {
			return o.File == "e.csv" && o.Concurrency == 4 && o.PageSize == 100 && o.Rate == "240/min" && !o.DryRun
		}},
		{"plan review", []string{"-f", "-", "--format", "ndjson", "--dry-run", "--detailed-exitcode", "--out", "p.plan", "--show-unchanged"}, false, func(o *Options) bool {
			return o.File == "-" && o.Format == "ndjson" && o.DryRun && o.DetailedExitcode && o.Out == "p.plan" && o.ShowUnchanged
		}},
		{"saved plan", []string{"--plan", "p.plan"}, false, func(o *Options) bool { return o.Plan == "p.plan" }},
		{"bulk", []string{"-f", "e.csv", "--prune", "--yes", "--concurrency", "8", "--rate", "0", "--state", "s", "--refresh", "-q", "--report", "r.ndjson"}, false, func(o *Options) bool {
			return o.Prune && o.Yes && o.Concurrency == 8 && o.Rate == "0" && o.State == "s" && o.Refresh && o.Quiet && o.Report == "r.ndjson"
		}},
		{"no file", nil, true, nil},
		{"file and plan", []string{"-f", "e.csv", "--plan", "p"}, true, nil},
		{"plan and dry run", []string{"--plan", "p", "--dry-run"}, true, nil},
		{"out without dry run", []string{"-f", "e.csv", "--out", "p"}, true, nil},
		{"detailed exit code without dry run", []string{"-f", "e.csv", "--detailed-exitcode"}, true, nil},
		{"concurrency 0", []string{"-f", "e.csv", "--concurrency", "0"}, true, nil},
		{"page size 0", []string{"-f", "e.csv", "--page-size", "0"}, true, nil},
		{"max pages 0", []string{"-f", "e.csv", "--max-pages", "0"}, true, nil},
		{"refresh without state", []string{"-f", "e.csv", "--refresh"}, true, nil},
		{"an argument", []string{"-f", "e.csv", "extra"}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			streams, _, _, _ := iostreams.Test()
			var got *Options
			cmd := NewCmdApply(cmdutil.New(streams), func(_ context.Context, o *Options) error { got = o; return nil })
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
