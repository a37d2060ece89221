package apply

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/flagtest"
)

func TestApplyFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(*Options) bool // nil: the command line is refused
	}{
		{"defaults", []string{"-f", "e.csv"}, func(o *Options) bool {
			return o.File == "e.csv" && o.Concurrency == 4 && o.PageSize == 100 && o.Rate == "240/min" && !o.DryRun
		}},
		{"plan review", []string{"-f", "-", "--format", "ndjson", "--dry-run", "--detailed-exitcode", "--out", "p.plan", "--show-unchanged"}, func(o *Options) bool {
			return o.File == "-" && o.Format == "ndjson" && o.DryRun && o.DetailedExitcode && o.Out == "p.plan" && o.ShowUnchanged
		}},
		{"saved plan", []string{"--plan", "p.plan"}, func(o *Options) bool { return o.Plan == "p.plan" }},
		{"bulk", []string{"-f", "e.csv", "--prune", "--yes", "--concurrency", "8", "--rate", "0", "--state", "s", "--refresh", "-q", "--report", "r.ndjson"}, func(o *Options) bool {
			return o.Prune && o.Yes && o.Concurrency == 8 && o.Rate == "0" && o.State == "s" && o.Refresh && o.Quiet && o.Report == "r.ndjson"
		}},
		{"no file", nil, nil},
		{"file and plan", []string{"-f", "e.csv", "--plan", "p"}, nil},
		{"plan and out", []string{"--plan", "p", "--out", "q"}, nil},
		{"plan and prune", []string{"--plan", "p", "--prune"}, nil},
		{"out without dry run", []string{"-f", "e.csv", "--out", "p"}, nil},
		{"detailed exit code without dry run", []string{"-f", "e.csv", "--detailed-exitcode"}, nil},
		{"concurrency 0", []string{"-f", "e.csv", "--concurrency", "0"}, nil},
		{"page size 0", []string{"-f", "e.csv", "--page-size", "0"}, nil},
		{"max pages 0", []string{"-f", "e.csv", "--max-pages", "0"}, nil},
		{"refresh without state", []string{"-f", "e.csv", "--refresh"}, nil},
		{"an argument", []string{"-f", "e.csv", "extra"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, streams, err := flagtest.Parse(NewCmdApply, tc.args...)
			switch {
			case tc.check == nil && !flagtest.Refused(got, err):
				t.Fatalf("%v, ran %v; want the command line refused", err, got != nil)
			case tc.check != nil && (err != nil || !tc.check(got) || got.IO != streams || got.Client == nil):
				t.Fatalf("%v, options %+v", err, got)
			}
		})
	}
}

// Apply halves the collector's headroom for a large file, and widens it
// for a small one within smallRunMemory, unless GOGC or GOMEMLIMIT sets
// the collector.
func TestTuneCollectorKeepsGOGC(t *testing.T) {
	was, wasLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(was); debug.SetMemoryLimit(wasLimit) }()
	const none = math.MaxInt64
	for _, tc := range []struct {
		gogc, gomemlimit string
		records          int
		want             int
		limit            int64
	}{
		{"", "", largeFile, 50, none},
		{"", "", largeFile - 1, 400, smallRunMemory},
		{"", "", 1, 400, smallRunMemory},
		{"200", "", largeFile, 100, none},
		{"off", "", 10 * largeFile, 100, none},
		{"", "1GiB", 10, 100, none},
	} {
		t.Setenv("GOGC", tc.gogc)
		t.Setenv("GOMEMLIMIT", tc.gomemlimit)
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(none)
		tuneCollector(tc.records)
		if got, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(none); got != tc.want || limit != tc.limit {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q, %d records: the collector's percent is %d and its limit %d, want %d and %d",
				tc.gogc, tc.gomemlimit, tc.records, got, limit, tc.want, tc.limit)
		}
	}
}
