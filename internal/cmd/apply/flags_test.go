package apply

import (
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

// Apply halves the collector's headroom for a large file, unless GOGC
// sets it.
func TestCollectSoonerForLargeFilesKeepsGOGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	for _, tc := range []struct {
		gogc    string
		records int
		want    int
	}{{"", largeFile, 50}, {"", largeFile - 1, 100}, {"200", largeFile, 100}, {"off", 10 * largeFile, 100}} {
		t.Setenv("GOGC", tc.gogc)
		debug.SetGCPercent(100)
		tuneCollector(tc.records)
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("GOGC=%q, %d records: the collector's percent is %d, want %d", tc.gogc, tc.records, got, tc.want)
		}
	}
}

// The writes of a run that holds little get four times its heap as room,
// a run that holds much (a large state, a large file) or whose collector
// the user or tuneCollector set keeps its percent.
func TestWritesPercent(t *testing.T) {
	for _, tc := range []struct {
		gogc, gomemlimit string
		held, percent    uint64
		want             int
	}{
		{"", "", 7 << 20, 100, 400},
		{"", "", smallHeldHeap - 1, 100, 400},
		{"", "", smallHeldHeap, 100, 100},
		{"", "", 600 << 20, 100, 100},
		{"", "", 1 << 20, 50, 50},
		{"200", "", 1 << 20, 200, 200},
		{"", "1GiB", 1 << 20, 100, 100},
	} {
		t.Setenv("GOGC", tc.gogc)
		t.Setenv("GOMEMLIMIT", tc.gomemlimit)
		if got := writesPercent(tc.held, tc.percent); got != tc.want {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q, %d MiB held at %d%%: %d%%, want %d%%", tc.gogc, tc.gomemlimit, tc.held>>20, tc.percent, got, tc.want)
		}
	}
}
