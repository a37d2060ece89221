package element

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk"
)

// CreateOptions are the inputs of `element create`.
type CreateOptions struct {
	cmdutil.Deps
	Code        string
	Description string
	HasDesc     bool
	Inactive    bool
	Orgs        []string
	FromFile    string
}

// NewCmdCreate returns `wbsctl element create`.
func NewCmdCreate(f *cmdutil.Factory, runF func(context.Context, *CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "create [CODE]",
		Short: "Create a WBS element",
		Example: `  wbsctl element create P-100.01 --description "Site preparation" --org company=1000
  wbsctl element create --from-file element.json`,
		Args: cmdutil.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Code = args[0]
			}
			opts.HasDesc = cmd.Flags().Changed("description")
			if (opts.Code == "") == (opts.FromFile == "") {
				return &cmdutil.UsageError{Err: errors.New("give either CODE or --from-file")}
			}
			return cmdutil.Pick(runF, runCreate)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Description, "description", "", "description (at most 100 characters)")
	cmd.Flags().BoolVar(&opts.Inactive, "inactive", false, "create the element inactive")
	cmd.Flags().StringArrayVar(&opts.Orgs, "org", nil, "business organization as TYPE=CODE (repeatable)")
	cmd.Flags().StringVar(&opts.FromFile, "from-file", "", "read the JSON body from a file, or - for stdin")
	return cmd
}

func runCreate(ctx context.Context, o *CreateOptions) error {
	req := &sdk.CreateWBSElementRequest{Code: o.Code}
	if o.FromFile != "" {
		if err := readJSON(o.IO.In, o.FromFile, req); err != nil {
			return err
		}
	} else {
		if o.HasDesc {
			req.Description = sdk.Ptr(o.Description)
		}
		if o.Inactive {
			req.IsActive = sdk.Ptr(false)
		}
		orgs, err := parseOrgs(o.Orgs)
		if err != nil {
			return err
		}
		req.BusinessOrganizations = orgs
	}
	c, err := o.Client()
	if err != nil {
		return err
	}
	ack, err := c.WBSElements.Create(ctx, req)
	if err != nil {
		return err
	}
	return printAck(o.IO, o.Printer, o.Mode().Structured(), "created", req.Code, ack)
}
