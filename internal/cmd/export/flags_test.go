package export

import (
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/flagtest"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

func TestExportFlags(t *testing.T) {
	got, streams, err := flagtest.Parse(NewCmdExport)
	if err != nil || got.PageSize != 100 || got.Concurrency != 4 || got.Format != wbsfile.FormatCSV || got.IO != streams || got.Client == nil {
		t.Fatalf("export: %v, %+v", err, got)
	}
	if got, _, err := flagtest.Parse(NewCmdExport, "--page-size", "500", "--concurrency", "8"); err != nil || got.PageSize != 500 || got.Concurrency != 8 {
		t.Fatalf("export --page-size 500 --concurrency 8: %v, %+v", err, got)
	}
	for _, args := range [][]string{{"--page-size", "0"}, {"--concurrency", "0"}, {"elements.csv"}} {
		if got, _, err := flagtest.Parse(NewCmdExport, args...); !flagtest.Refused(got, err) {
			t.Errorf("export %v: %v, ran %v; want the command line refused", args, err, got != nil)
		}
	}
}
