package apply

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/sdk"
)

// ExportOptions are the inputs of `wbsctl export`.
type ExportOptions struct {
	cmdutil.Deps
	Format   engine.Format
	PageSize int
}

// NewCmdExport returns `wbsctl export`.
func NewCmdExport(f *cmdutil.Factory, runF func(context.Context, *ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write every WBS element with its organizations, in a format apply reads",
		Long: `Write every WBS element with its business organizations as CSV (the
default), JSON, NDJSON or YAML (-o), in the formats wbsctl apply reads:
applying an export changes nothing. It reads the element list and, for
each element, its organizations.`,
		Example: `  wbsctl export > elements.csv
  wbsctl export -o yaml > elements.yaml`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format = engine.FormatCSV
			if f.Global.Output != "" {
				var err error
				if opts.Format, err = engine.DetectFormat("", f.Global.Output); err != nil {
					return &cmdutil.UsageError{Err: err}
				}
			}
			if opts.PageSize < 1 {
				return &cmdutil.UsageError{Err: errors.New("--page-size must be at least 1")}
			}
			return cmdutil.Pick(runF, runExport)(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.PageSize, "page-size", 100, "items per page of the reads: the largest the platform answers costs the fewest requests")
	return cmd
}

func runExport(ctx context.Context, o *ExportOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	records, err := export(ctx, c, o.PageSize)
	if err != nil {
		return err
	}
	return engine.Write(cmdutil.DataOut(o.IO), o.Format, records)
}

func export(ctx context.Context, c *sdk.Client, pageSize int) ([]engine.Record, error) {
	var records []engine.Record
	for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: pageSize, MaxPages: cmdutil.DefaultMaxPages}) {
		if err != nil {
			return nil, err
		}
		r := engine.Record{Code: el.Code, Description: el.Description, IsActive: sdk.Ptr(el.IsActive), OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}}
		for l, err := range c.WBSElements.AllBusinessOrganizationsOfExisting(ctx, el.Code, &sdk.ListOptions{PageSize: pageSize}) {
			if err != nil {
				return nil, fmt.Errorf("organizations of %q: %w", el.Code, err)
			}
			r.Organizations = append(r.Organizations, l.BusinessOrganization())
		}
		records = append(records, r)
	}
	return records, nil
}
