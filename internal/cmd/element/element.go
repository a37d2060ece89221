// Package element holds `wbsctl element`: create, list, view, update and
// delete WBS elements, and list and remove their business organizations.
package element

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/strictjson"
	"github.com/wbsctl/wbsctl/sdk"
)

// NewCmdElement returns `wbsctl element` and its subcommands.
func NewCmdElement(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "element <command>",
		Aliases: []string{"elements"},
		Short:   "Create, list, view, update and delete WBS elements",
	}
	org := &cobra.Command{Use: "org <command>", Short: "List and remove the business organizations of an element"}
	org.AddCommand(NewCmdOrgList(f, nil), NewCmdOrgRemove(f, nil))
	cmd.AddCommand(NewCmdCreate(f, nil), NewCmdList(f, nil), NewCmdView(f, nil), NewCmdUpdate(f, nil), NewCmdDelete(f, nil), org)
	return cmd
}

// printAck writes the acknowledgement: a line for people on stderr, the
// correlation id as data on stdout for scripts.
func printAck(streams *iostreams.IOStreams, printer func(...string) (*output.Printer, error), structured bool, verb, code string, ack *sdk.Acknowledgement) error {
	if structured {
		p, err := printer("CODE", "CORRELATION ID")
		if err != nil {
			return err
		}
		return p.Single(struct {
			Code          string `json:"wbsElementCode"`
			CorrelationID string `json:"correlationId"`
		}{code, ack.CorrelationID}, code, ack.CorrelationID)
	}
	fmt.Fprintf(streams.ErrOut, "%s %s (correlation id %s)\n", verb, output.Quote(code), output.Escape(ack.CorrelationID))
	return nil
}

// parseOrgs reads --org values in the notation of apply files: TYPE=CODE,
// where a backslash escapes '=', ';' and '\'; one value may hold several
// pairs separated by ';'.
func parseOrgs(args []string) ([]sdk.BusinessOrganization, error) {
	var out []sdk.BusinessOrganization
	for _, a := range args {
		orgs, err := notation.Parse(a)
		if err == nil && len(orgs) == 0 {
			err = errors.New("want TYPE=CODE")
		}
		if err != nil {
			return nil, &cmdutil.UsageError{Err: fmt.Errorf("organization %q: %v (escape '=' and ';' as \\= and \\;)", a, err)}
		}
		out = append(out, orgs...)
	}
	return out, nil
}

func readJSON(in io.Reader, name string, v any) error {
	raw, err := cmdutil.ReadFileOrStdin(in, name, 1<<20)
	if err != nil {
		return &cmdutil.UsageError{Err: fmt.Errorf("--from-file %s: %w", name, err)}
	}
	if err := strictjson.Unmarshal(raw, v); err != nil {
		return &cmdutil.UsageError{Err: fmt.Errorf("--from-file %s: %w", name, err)}
	}
	return nil
}
