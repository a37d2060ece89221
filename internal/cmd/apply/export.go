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

// NewCmdExport returns `wbsctl export`.
func NewCmdExport(f *cmdutil.Factory) *cobra.Command {
	pageSize := 100
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
			format := engine.FormatCSV
			if f.Global.Output != "" {
				var err error
				if format, err = engine.DetectFormat("", f.Global.Output); err != nil {
					return &cmdutil.UsageError{Err: err}
				}
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			if pageSize < 1 {
				return &cmdutil.UsageError{Err: errors.New("--page-size must be at least 1")}
			}
			records, err := export(cmd.Context(), c, pageSize)
			if err != nil {
				return err
			}
			return engine.Write(f.IO.Out, format, records)
		},
	}
	cmd.Flags().IntVar(&pageSize, "page-size", 100, "items per page of the reads: the largest the platform answers costs the fewest requests")
	return cmd
}

func export(ctx context.Context, c *sdk.Client, pageSize int) ([]engine.Record, error) {
	var records []engine.Record
	for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: pageSize, MaxPages: engine.DefaultMaxPages}) {
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
