package apply

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/wbsctl/wbsctl/internal/engine"
)

// progress is what apply says while it makes the plan's changes: a bar on
// a terminal, a line every --progress-interval on a pipe, nothing with
// --quiet. Its lines end, their goroutine gone, before anything else is
// written to stderr (stop), on every way out.
type progress struct {
	o            *Options
	done, failed atomic.Int64
	bar          *progressbar.ProgressBar
	ticking      sync.WaitGroup
	end          chan struct{}
	stop         func()
	// warnings are the engine's, printed once the progress has ended,
	// not on its line.
	warnings []error
}

func newProgress(o *Options) *progress {
	p := &progress{o: o, end: make(chan struct{})}
	p.stop = sync.OnceFunc(func() {
		close(p.end)
		p.ticking.Wait()
		if p.bar != nil {
			_ = p.bar.Finish()
		}
	})
	return p
}

// start shows the progress of the plan's changes, once the plan is known.
func (p *progress) start(plan *engine.Plan) {
	total := 0
	for _, ch := range plan.Changes {
		if ch.Action != engine.ActionUnchanged {
			total++
		}
	}
	o := p.o
	switch {
	case o.Quiet || total == 0:
	case o.IO.IsStderrTTY():
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(o.IO.ErrOut),
			progressbar.OptionSetDescription("applying"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("records"), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	default:
		p.ticking.Go(func() { p.lines(total) })
	}
}

// add counts a result.
func (p *progress) add(r engine.Result) {
	p.done.Add(1)
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
	if r.Status == engine.StatusFailed {
		p.failed.Add(1)
	}
}

// lines prints a line every --progress-interval on stderr until stop.
func (p *progress) lines(total int) {
	start := time.Now()
	tick := time.NewTicker(p.o.ProgressInterval)
	defer tick.Stop()
	for {
		select {
		case <-p.end:
			return
		case <-tick.C:
			n := p.done.Load()
			rate := float64(n) / time.Since(start).Seconds()
			eta := "unknown"
			if rate > 0 {
				eta = (time.Duration(float64(int64(total)-n)/rate) * time.Second).Round(time.Second).String()
			}
			fmt.Fprintf(p.o.IO.ErrOut, "progress: %d/%d done, %d failed, %.1f/s, about %s left\n", n, total, p.failed.Load(), rate, eta)
		}
	}
}

// planning is what a plan says while it reads links where stderr is no
// terminal (a CI log): a line every --progress-interval, so that a long
// plan is not a silent one. Its line ends before the plan is printed.
type planning struct {
	read, total atomic.Int64
	end         chan struct{}
	ticking     sync.WaitGroup
}

// startPlanning prints the plan's reads of links every interval until
// the returned stop, unless quiet or on a terminal.
func startPlanning(o *Options) (_ *planning, stop func()) {
	p := &planning{end: make(chan struct{})}
	if o.Quiet || o.IO.IsStderrTTY() {
		return p, func() {}
	}
	p.ticking.Go(func() {
		start := time.Now()
		tick := time.NewTicker(o.ProgressInterval)
		defer tick.Stop()
		for {
			select {
			case <-p.end:
				return
			case <-tick.C:
				n, took := o.Requests(), time.Since(start).Round(time.Second)
				if total := p.total.Load(); total > 0 {
					fmt.Fprintf(o.IO.ErrOut, "planning: links of %d of %d elements read, %d requests, %s\n", p.read.Load(), total, n.Sent, took)
				} else {
					fmt.Fprintf(o.IO.ErrOut, "planning: reading the element list, %d requests, %s\n", n.Sent, took)
				}
			}
		}
	})
	return p, sync.OnceFunc(func() {
		close(p.end)
		p.ticking.Wait()
	})
}

// linksRead is PlanOptions.LinksRead.
func (p *planning) linksRead(read, total int) {
	p.read.Store(int64(read))
	p.total.Store(int64(total))
}
