package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/sdk"
)

// OwnSignals is the annotation of a command that handles SIGINT and
// SIGTERM itself (apply stops starting work, serve shuts down); every
// other command gets SignalContext.
const OwnSignals = "wbsctl/own-signals"

// HandlesSignals reports whether c handles signals itself.
func HandlesSignals(c *cobra.Command) bool { return c.Annotations[OwnSignals] != "" }

// SignalContext returns a context that the first SIGINT or SIGTERM
// cancels, its cause an *Interrupted naming the signal. A second signal
// ends the process as the signal does by default.
func SignalContext(parent context.Context) (context.Context, func()) {
	stop, _, release := signalContexts(parent, 1)
	return stop, release
}

// SignalContexts returns the two contexts of a command that finishes what
// it has in flight before it stops (apply): stop, which the first SIGINT
// or SIGTERM ends (start no new work; finish what is in flight), and
// cancel, which the second ends (end now), and with it stop. Both carry
// as their cause the *Interrupted naming the first signal. A third
// signal ends the process as the signal does by default.
func SignalContexts(parent context.Context) (stop, cancel context.Context, release func()) {
	return signalContexts(parent, 2)
}

// signalContexts ends stop at the first signal and, with stages 2,
// cancel at the second; after the last stage signals are the process's
// again.
func signalContexts(parent context.Context, stages int) (context.Context, context.Context, func()) {
	cancelCtx, cancel := context.WithCancelCause(parent)
	stopCtx, stop := context.WithCancelCause(cancelCtx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var first *Interrupted
		for stage := range stages {
			select {
			case sig := <-sigs:
				if first == nil {
					first = &Interrupted{Signal: sig}
				}
				if stage == stages-1 {
					signal.Stop(sigs)
				}
				if stage == 0 {
					stop(first)
				} else {
					cancel(first)
				}
			case <-done:
				return
			}
		}
	}()
	return stopCtx, cancelCtx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// Interruption is the error of a command whose context a signal ended:
// it says which signal, and, for a request that may have reached the
// platform, that its outcome is unknown and must be checked before the
// command is run again. Other errors are returned as they are.
func Interruption(ctx context.Context, err error) error {
	var intr *Interrupted
	if err == nil || !errors.As(context.Cause(ctx), &intr) {
		return err
	}
	if errors.Is(err, sdk.ErrOutcomeUnknown) {
		return fmt.Errorf("%w after the request was sent: it may have been carried out; check the platform's state before running the command again: %w", intr, err)
	}
	return fmt.Errorf("%w: %w", intr, err)
}
