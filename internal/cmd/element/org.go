package element

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/sdk"
)

// NewCmdOrgList returns `wbsctl element org list`.
func NewCmdOrgList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:               "list CODE",
		ValidArgsFunction: f.CompleteCodes,
		Short:             "List the business organizations of a WBS element",
		Args:              cmdutil.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Code = args[0]
			opts.pageSizeSet = cmd.Flags().Changed("page-size")
			if err := opts.check(); err != nil {
				return err
			}
			return cmdutil.Pick(runF, runOrgList)(cmd.Context(), opts)
		},
	}
	addListFlags(cmd, opts)
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

func runOrgList(ctx context.Context, o *ListOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	p, err := o.Printer("TYPE", "CODE")
	if err != nil {
		return err
	}
	defer p.Sync() // what was listed before an error is written out
	add := func(l sdk.LinkedBusinessOrganization) error {
		b := l.BusinessOrganization()
		return p.Add(l, b.EntityType, b.Code)
	}
	lo := o.listOptions()
	var links []sdk.LinkedBusinessOrganization
	if o.All || o.Limit > 0 {
		for l, err := range c.WBSElements.AllBusinessOrganizations(ctx, o.Code, lo) {
			if err != nil {
				if err := noLinksOrErr(ctx, c, o.Code, err); err != nil {
					return err
				}
				break
			}
			if links = append(links, l); len(links) == o.Limit {
				break
			}
		}
	} else {
		page, err := c.WBSElements.ListBusinessOrganizations(ctx, o.Code, lo)
		if err != nil {
			if err := noLinksOrErr(ctx, c, o.Code, err); err != nil {
				return err
			}
		} else {
			links = page.Data
		}
	}
	for _, l := range links {
		if err := add(l); err != nil {
			return err
		}
	}
	return p.Flush()
}

// noLinksOrErr reads a 404 of an element's links list: on a platform that
// answers an empty list with 404 it may mean that the element has no
// links, which only the element list can tell from a missing element. It
// returns nil for an element the list holds, err otherwise.
func noLinksOrErr(ctx context.Context, c *sdk.Client, code string, err error) error {
	if !errors.Is(err, sdk.ErrNotFound) {
		return err
	}
	for el, lerr := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 100}) {
		if lerr != nil {
			return fmt.Errorf("%w (and the element list could not tell whether %q exists: %w)", err, code, lerr)
		}
		if el.Code == code {
			return nil
		}
	}
	return err
}

// OrgRemoveOptions are the inputs of `element org remove`.
type OrgRemoveOptions struct {
	cmdutil.Deps
	Code string
	Orgs []string
}

// NewCmdOrgRemove returns `wbsctl element org remove`.
func NewCmdOrgRemove(f *cmdutil.Factory, runF func(context.Context, *OrgRemoveOptions) error) *cobra.Command {
	opts := &OrgRemoveOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:               "remove CODE TYPE=CODE...",
		ValidArgsFunction: completeLinks(f),
		Short:             "Remove business organizations from a WBS element",
		Example:           `  wbsctl element org remove P-100.01 company=1000 branch=B1`,
		Args:              cmdutil.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Code, opts.Orgs = args[0], args[1:]
			return cmdutil.Pick(runF, runOrgRemove)(cmd.Context(), opts)
		},
	}
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

// completeLinks completes an element code first, then the organizations
// linked to that element, in the TYPE=CODE notation, leaving out those
// already given.
func completeLinks(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return f.CompleteCodes(cmd, args, prefix)
		}
		c, err := f.Client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
		defer cancel()
		given := map[string]bool{}
		for _, a := range args[1:] {
			given[a] = true
		}
		var out []string
		for l, err := range c.WBSElements.AllBusinessOrganizationsOfExisting(ctx, args[0], &sdk.ListOptions{PageSize: 100, MaxPages: 10}) {
			if err != nil {
				break
			}
			s := notation.FormatOne(l.BusinessOrganization())
			if strings.HasPrefix(s, prefix) && !given[s] {
				out = append(out, s)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func runOrgRemove(ctx context.Context, o *OrgRemoveOptions) error {
	orgs, err := parseOrgs(o.Orgs)
	if err != nil {
		return err
	}
	c, err := o.Client()
	if err != nil {
		return err
	}
	ack, err := c.WBSElements.DeleteBusinessOrganizations(ctx, o.Code, &sdk.DeleteBusinessOrganizationsRequest{BusinessOrganizations: orgs})
	if err != nil {
		return err
	}
	return printAck(o.IO, o.Printer, o.Mode().Structured(), "removed organizations from", o.Code, ack)
}
