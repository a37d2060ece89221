package apply_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// A lost state refills across plans that each end within their time: a
// plan past --max-duration stops reading links, keeps what it read in
// the state, shows itself as partial (never as "No changes"), writes no
// saved plan and exits 11; the next plan goes on from there, until one
// reads everything within its time and says what it found.
func TestALostStateRefillsWithinEachPlansTime(t *testing.T) {
	const n = 80
	srv := wbstest.Start(t)
	dir := t.TempDir()
	file := linkedFile(t, dir, n, 0)
	if code, _, errOut := run(t, srv, "", "apply", "-f", file, "--rate", "0"); code != 0 {
		t.Fatalf("load: %d %s", code, errOut)
	}
	// Each read of links takes 10 ms, one at a time: a plan of the
	// whole file without a state takes 800 ms, a plan's time is 150 ms.
	srv.AddFaults(wbstest.FaultRule{Operation: wbstest.OpListLinks, Kind: wbstest.FaultLatency, Latency: 10 * time.Millisecond})
	state := filepath.Join(dir, "state.json")
	plan := filepath.Join(dir, "wbs.plan")
	read := 0
	for round := 1; ; round++ {
		if round > n {
			t.Fatalf("the state was not filled within %d plans", n)
		}
		srv.ResetStats()
		code, out, errOut := run(t, srv, "", "apply", "-f", file, "--state", state, "--dry-run", "--detailed-exitcode",
			"--max-duration", "150ms", "--concurrency", "1", "--out", plan, "-o", "markdown", "--rate", "0")
		reads := srv.Stats().Requests[wbstest.OpListLinks]
		if code == 0 {
			if !strings.Contains(out, "No changes: the platform holds what the file says") {
				t.Fatalf("the complete plan, round %d:\n%s", round, out)
			}
			if _, err := os.Stat(plan); err != nil {
				t.Fatalf("the complete plan was not saved: %v", err)
			}
			t.Logf("filled in %d plans", round)
			return
		}
		if code != cmdutil.ExitPartialPlan || !strings.Contains(errOut, "partial plan") || strings.Contains(out, "No changes") || reads == 0 {
			t.Fatalf("round %d: exit %d (want %d), %d reads:\n%s\n%s", round, code, cmdutil.ExitPartialPlan, reads, out, errOut)
		}
		if _, err := os.Stat(plan); err == nil {
			t.Fatalf("round %d: a partial plan was saved", round)
		}
		read += reads
		if read > 2*n {
			t.Fatalf("%d reads in %d plans of %d elements: the plans do not go on from the state", read, round, n)
		}
	}
}
