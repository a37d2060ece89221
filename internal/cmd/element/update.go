package element

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// UpdateOptions are the inputs of `element update`.
type UpdateOptions struct {
	cmdutil.Deps
	Code string
	// Texts are the text flags given, "" too; nil where not given.
	Texts wbsfile.Texts
	// Clear are the names of the text fields to clear.
	Clear            []string
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
			for _, f := range wbsfile.TextFields {
				if on, _ := cmd.Flags().GetBool("clear-" + flagName(f)); on {
					opts.Clear = append(opts.Clear, f.Name)
				}
			}
			return cmdutil.Pick(runF, runUpdate)(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	textFlags(cmd, &opts.Texts, func(f wbsfile.TextField) string {
		return fmt.Sprintf("new %s (at most %d characters)", f.Name, f.Max)
	})
	for _, f := range wbsfile.TextFields {
		fl.Bool("clear-"+flagName(f), false, "remove "+f.Usage)
	}
	fl.BoolVar(&opts.Active, "active", false, "make the element active")
	fl.BoolVar(&opts.Inactive, "inactive", false, "make the element inactive")
	fl.StringArrayVar(&opts.Orgs, "org", nil, "business organization as TYPE=CODE (repeatable)")
	fl.StringVar(&opts.FromFile, "from-file", "", "read the JSON body from a file, or - for stdin")
	for _, f := range wbsfile.TextFields {
		cmd.MarkFlagsMutuallyExclusive(flagName(f), "clear-"+flagName(f))
		cmd.MarkFlagsMutuallyExclusive("from-file", flagName(f))
		cmd.MarkFlagsMutuallyExclusive("from-file", "clear-"+flagName(f))
	}
	cmd.MarkFlagsMutuallyExclusive("active", "inactive")
	cmd.MarkFlagsMutuallyExclusive("from-file", "org")
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

// textsGiven reports whether req sets or clears a text field.
func textsGiven(req *sdk.UpdateWBSElementRequest) bool {
	for _, f := range wbsfile.TextFields {
		if !f.Update(req).IsZero() {
			return true
		}
	}
	return false
}

func runUpdate(ctx context.Context, o *UpdateOptions) error {
	req := &sdk.UpdateWBSElementRequest{}
	if o.FromFile != "" {
		if err := readJSON(o.IO.In, o.FromFile, req); err != nil {
			return err
		}
	}
	for _, f := range wbsfile.TextFields {
		if v := *f.Of(&o.Texts); v != nil {
			*f.Update(req) = sdk.Set(*v)
		}
		if slices.Contains(o.Clear, f.Name) {
			*f.Update(req) = sdk.Null[string]()
		}
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
	if !textsGiven(req) && req.IsActive.IsZero() && req.BusinessOrganizations.IsZero() {
		var flags []string
		for _, f := range wbsfile.TextFields {
			flags = append(flags, "--"+flagName(f), "--clear-"+flagName(f))
		}
		return &cmdutil.UsageError{Err: fmt.Errorf("nothing to update: give %s, --active, --inactive, --org or --from-file", strings.Join(flags, ", "))}
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
