package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// --max-deletes bounds a prune: a plan that deletes more elements than it
// allows is refused, saying how many, before the prompt and before
// anything is written; one within it runs.
func TestMaxDeletesRefusesALargerPrune(t *testing.T) {
	srv := wbstest.NewServer()
	defer srv.Close()
	c := testClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	all := records(10)
	converge(t, c, all, false)
	srv.ResetStats()
	short := &wbsfile.File{Records: all[:6]} // a file cut short: 4 deletes
	asked := false
	bound := 3
	_, err := Run(ctx, c, Input{File: short, Prune: Prune{Requested: true, MaxDeletes: &bound}},
		Hooks{ConfirmPrune: func(int) (bool, error) { asked = true; return true, nil }})
	if !errors.Is(err, ErrTooManyDeletes) || !strings.Contains(err.Error(), "deletes 4") || !strings.Contains(err.Error(), "allows 3") {
		t.Fatalf("a prune of 4 under --max-deletes 3: %v; want ErrTooManyDeletes saying 4 and 3", err)
	}
	if asked {
		t.Fatal("a prune over --max-deletes was put to the prompt")
	}
	if n := len(srv.Elements()); n != 10 {
		t.Fatalf("a prune over --max-deletes left %d of 10 elements", n)
	}
	for op, n := range srv.Stats().Requests {
		if op != wbstest.OpList && op != wbstest.OpListLinks && op != wbstest.OpToken && n > 0 {
			t.Fatalf("a prune over --max-deletes sent %d requests of %s", n, op)
		}
	}
	bound = 4
	if _, err := Run(ctx, c, Input{File: short, Prune: Prune{Requested: true, MaxDeletes: &bound}},
		Hooks{ConfirmPrune: func(int) (bool, error) { return true, nil }}); err != nil {
		t.Fatalf("a prune of 4 under --max-deletes 4: %v", err)
	}
	if n := len(srv.Elements()); n != 6 {
		t.Fatalf("a prune within --max-deletes left %d elements, want 6", n)
	}
}
