package element

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
)

// DeleteOptions are the inputs of `element delete`.
type DeleteOptions struct {
	cmdutil.Deps
	Codes []string
}

// NewCmdDelete returns `wbsctl element delete`.
func NewCmdDelete(f *cmdutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:               "delete CODE...",
		ValidArgsFunction: f.CompleteCodes,
		Short:             "Delete WBS elements",
		Long: `Delete WBS elements. Every code is tried; when some fail and others succeed,
wbsctl exits with 6 (partial failure).`,
		Args: cmdutil.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Codes = args
			return cmdutil.Pick(runF, runDelete)(cmd.Context(), opts)
		},
	}
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

func runDelete(ctx context.Context, o *DeleteOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	var failed []error
	for _, code := range o.Codes {
		ack, err := c.WBSElements.Delete(ctx, code)
		if err != nil {
			if len(o.Codes) == 1 {
				return err
			}
			cmdutil.PrintError(o.IO.ErrOut, err, false)
			failed = append(failed, err)
			continue
		}
		if err := printAck(o.IO, o.Printer, o.Mode().Structured(), "deleted", code, ack); err != nil {
			return err
		}
	}
	switch {
	case len(failed) == len(o.Codes):
		return failed[0]
	case len(failed) > 0:
		return &cmdutil.PartialError{Failed: len(failed), Total: len(o.Codes)}
	}
	return nil
}
