package element

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk"
)

// UpdateOptions are the inputs of `element update`.
type UpdateOptions struct {
	cmdutil.Deps
	Code             string
	Description      string
	HasDesc          bool
	ClearDescription bool
	Active, Inactive bool
	Orgs             []string
	FromFile         string
}

// NewCmdUpdate returns `wbsctl element update`.
func NewCmdUpdate(f *cmdutil.Factory, runF func(context.Context, *UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:               "update CODE",
		ValidArgsFunction: f.CompleteCodes,
		Short:             "Update a WBS element",
		Long: `Update a WBS element. Fields not given stay as they are. Whether --org adds
to the element's business organizations or replaces them depends on the
platform.`,
		Example: `  wbsctl element update P-100.01 --description "Site preparation, phase 2" --inactive
  wbsctl element update P-100.01 --clear-description`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Code = args[0]
			opts.HasDesc = cmd.Flags().Changed("description")
			return cmdutil.Pick(runF, runUpdate)(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Description, "description", "", "new description (at most 100 characters)")
	fl.BoolVar(&opts.ClearDescription, "clear-description", false, "remove the description")
	fl.BoolVar(&opts.Active, "active", false, "make the element active")
	fl.BoolVar(&opts.Inactive, "inactive", false, "make the element inactive")
	fl.StringArrayVar(&opts.Orgs, "org", nil, "business organization as TYPE=CODE (repeatable)")
	fl.StringVar(&opts.FromFile, "from-file", "", "read the JSON body from a file, or - for stdin")
	cmd.MarkFlagsMutuallyExclusive("description", "clear-description")
	cmd.MarkFlagsMutuallyExclusive("active", "inactive")
	cmd.MarkFlagsMutuallyExclusive("from-file", "description")
	cmd.MarkFlagsMutuallyExclusive("from-file", "clear-description")
	cmd.MarkFlagsMutuallyExclusive("from-file", "org")
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

func runUpdate(ctx context.Context, o *UpdateOptions) error {
	req := &sdk.UpdateWBSElementRequest{}
	if o.FromFile != "" {
		if err := readJSON(o.IO.In, o.FromFile, req); err != nil {
			return err
		}
	}
	switch {
	case o.HasDesc:
		req.Description = sdk.Set(o.Description)
	case o.ClearDescription:
		req.Description = sdk.Null[string]()
	}
	switch {
	case o.Active:
		req.IsActive = sdk.Set(true)
	case o.Inactive:
		req.IsActive = sdk.Set(false)
	}
	if len(o.Orgs) > 0 {
		orgs, err := parseOrgs(o.Orgs)
		if err != nil {
			return err
		}
		req.BusinessOrganizations = sdk.Set(orgs)
	}
	if req.Description.IsZero() && req.IsActive.IsZero() && req.BusinessOrganizations.IsZero() {
		return &cmdutil.UsageError{Err: errors.New("nothing to update: give --description, --clear-description, --active, --inactive, --org or --from-file")}
	}
	c, err := o.Client()
	if err != nil {
		return err
	}
	ack, err := c.WBSElements.Update(ctx, o.Code, req)
	if err != nil {
		return err
	}
	return printAck(o.IO, o.Printer, o.Mode().Structured(), "updated", o.Code, ack)
}
