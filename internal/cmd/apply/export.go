package apply

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	engine "github.com/wbsctl/wbsctl/internal/apply"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk"
)

// NewCmdExport returns `wbsctl export`.
func NewCmdExport(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "export",
		Short: "Write every WBS element with its organizations, in a format apply reads",
		Long: `Write every WBS element with its business organizations as CSV (the
default), JSON, NDJSON or YAML (-o), in the formats wbsctl apply reads:
applying an export changes nothing. It reads the element list and, for
each element, its organizations.`,
		Example: `  wbsctl export > elements.csv
  wbsctl export -o yaml > elements.yaml`,
		Args: cobra.NoArgs,
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
			records, err := export(cmd.Context(), c)
			if err != nil {
				return err
			}
			return engine.Write(f.IO.Out, format, records)
		},
	}
}

func export(ctx context.Context, c *sdk.Client) ([]engine.Record, error) {
	var records []engine.Record
	for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 100}) {
		if err != nil {
			return nil, err
		}
		r := engine.Record{Code: el.Code, Description: el.Description, IsActive: sdk.Bool(el.IsActive), OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}}
		for l, err := range c.WBSElements.AllBusinessOrganizations(ctx, el.Code, &sdk.ListOptions{PageSize: 100}) {
			if err != nil {
				return nil, fmt.Errorf("organizations of %q: %w", el.Code, err)
			}
			r.Organizations = append(r.Organizations, l.BusinessOrganization())
		}
		records = append(records, r)
	}
	return records, nil
}
