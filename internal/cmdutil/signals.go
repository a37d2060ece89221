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
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			cancel(&Interrupted{Signal: sig})
		case <-done:
		}
	}()
	return ctx, func() {
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
