// Package element holds `wbsctl element`: create, list, update and delete
// WBS elements, and list and remove their business organizations.
package element

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/sdk"
)

// NewCmdElement returns `wbsctl element` and its subcommands.
func NewCmdElement(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "element <command>",
		Aliases: []string{"elements"},
		Short:   "Create, list, update and delete WBS elements",
	}
	org := &cobra.Command{Use: "org <command>", Short: "List and remove the business organizations of an element"}
	org.AddCommand(NewCmdOrgList(f, nil), NewCmdOrgRemove(f, nil))
	cmd.AddCommand(NewCmdCreate(f, nil), NewCmdList(f, nil), NewCmdUpdate(f, nil), NewCmdDelete(f, nil), org)
	return cmd
}

// CreateOptions are the inputs of `element create`.
type CreateOptions struct {
	F           *cmdutil.Factory
	Code        string
	Description string
	HasDesc     bool
	Inactive    bool
	Orgs        []string
	FromFile    string
}

// NewCmdCreate returns `wbsctl element create`.
func NewCmdCreate(f *cmdutil.Factory, runF func(context.Context, *CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{F: f}
	cmd := &cobra.Command{
		Use:   "create [CODE]",
		Short: "Create a WBS element",
		Example: `  wbsctl element create P-100.01 --description "Site preparation" --org company=1000
  wbsctl element create --from-file element.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Code = args[0]
			}
			opts.HasDesc = cmd.Flags().Changed("description")
			if (opts.Code == "") == (opts.FromFile == "") {
				return &cmdutil.UsageError{Err: errors.New("give either CODE or --from-file")}
			}
			return pick(runF, runCreate)(cmd.Context(), opts)
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
		if err := readJSON(o.F, o.FromFile, req); err != nil {
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
	c, err := o.F.Client()
	if err != nil {
		return err
	}
	ack, err := c.WBSElements.Create(ctx, req)
	if err != nil {
		return err
	}
	return printAck(o.F, "created", req.Code, ack)
}

// ListOptions are the inputs of `element list` and `element org list`.
type ListOptions struct {
	F        *cmdutil.Factory
	Code     string
	Page     int
	PageSize int
	All      bool
	// Limit reads pages until it has this many items; 0 is one page.
	Limit    int
	MaxPages int

	pageSizeSet bool
}

func addListFlags(cmd *cobra.Command, o *ListOptions) {
	cmd.Flags().IntVar(&o.Page, "page", 1, "page number")
	cmd.Flags().IntVar(&o.PageSize, "page-size", 0, "items per page (default: the platform's, 10)")
	cmd.Flags().BoolVar(&o.All, "all", false, "list every page, streaming")
	cmd.Flags().IntVarP(&o.Limit, "limit", "L", 0, "read pages until this many items are listed")
	cmd.Flags().IntVar(&o.MaxPages, "max-pages", engine.DefaultMaxPages, "with --all: stop after this many pages, as a guard against a list that never ends")
	cmd.MarkFlagsMutuallyExclusive("all", "limit")
}

// check refuses values the platform would answer with something other
// than asked for.
func (o *ListOptions) check() error {
	switch {
	case o.Page < 1:
		return &cmdutil.UsageError{Err: fmt.Errorf("--page %d: pages are numbered from 1", o.Page)}
	case o.PageSize < 0 || (o.PageSize == 0 && o.pageSizeSet):
		return &cmdutil.UsageError{Err: fmt.Errorf("--page-size %d: want at least 1", o.PageSize)}
	case o.Limit < 0:
		return &cmdutil.UsageError{Err: fmt.Errorf("--limit %d: want at least 1", o.Limit)}
	case o.MaxPages < 1:
		return &cmdutil.UsageError{Err: fmt.Errorf("--max-pages %d: want at least 1", o.MaxPages)}
	}
	return nil
}

func (o *ListOptions) listOptions() *sdk.ListOptions {
	lo := &sdk.ListOptions{PageNumber: o.Page, PageSize: o.PageSize}
	if o.All || o.Limit > 0 {
		lo.MaxPages = o.MaxPages
	}
	return lo
}

// NewCmdList returns `wbsctl element list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{F: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List WBS elements",
		Example: `  wbsctl element list --all -o csv > elements.csv
  wbsctl element list --all --jq '.[] | select(.isActive | not) | .wbsElementCode'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.pageSizeSet = cmd.Flags().Changed("page-size")
			if err := opts.check(); err != nil {
				return err
			}
			return pick(runF, runList)(cmd.Context(), opts)
		},
	}
	addListFlags(cmd, opts)
	return cmd
}

func runList(ctx context.Context, o *ListOptions) error {
	c, err := o.F.Client()
	if err != nil {
		return err
	}
	p, err := o.F.Printer("CODE", "DESCRIPTION", "ACTIVE")
	if err != nil {
		return err
	}
	add := func(el sdk.WBSElement) error {
		desc := ""
		if el.Description != nil {
			desc = *el.Description
		}
		return p.Add(el, el.Code, desc, strconv.FormatBool(el.IsActive))
	}
	lo := o.listOptions()
	if o.All || o.Limit > 0 {
		n := 0
		for el, err := range c.WBSElements.All(ctx, lo) {
			if err != nil {
				return err
			}
			if err := add(el); err != nil {
				return err
			}
			if n++; n == o.Limit {
				break
			}
		}
		return p.Flush()
	}
	page, err := c.WBSElements.List(ctx, lo)
	if err != nil {
		return err
	}
	for _, el := range page.Data {
		if err := add(el); err != nil {
			return err
		}
	}
	if err := p.Flush(); err != nil {
		return err
	}
	if o.F.IO.StderrTTY && mayHaveMore(page, o.PageSize) {
		fmt.Fprintf(o.F.IO.ErrOut, "showing page %d (%d elements); more may follow: --page %d, --limit N or --all\n", page.PageNumber, len(page.Data), page.PageNumber+1)
	}
	return nil
}

// mayHaveMore reports whether a page read alone may not be the list's
// last: its next or a total says so, or it is full.
func mayHaveMore[T any](page *sdk.Page[T], size int) bool {
	if page.Next != nil && *page.Next != "" {
		return true
	}
	if page.Hits != nil && *page.Hits > (page.PageNumber-1)*cmp.Or(size, 10)+len(page.Data) {
		return true
	}
	return len(page.Data) > 0 && len(page.Data) >= cmp.Or(size, 10)
}

// UpdateOptions are the inputs of `element update`.
type UpdateOptions struct {
	F                *cmdutil.Factory
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
	opts := &UpdateOptions{F: f}
	cmd := &cobra.Command{
		Use:               "update CODE",
		ValidArgsFunction: f.CompleteCodes,
		Short:             "Update a WBS element",
		Long: `Update a WBS element. Fields not given stay as they are. Whether --org adds
to the element's business organizations or replaces them depends on the
platform.`,
		Example: `  wbsctl element update P-100.01 --description "Site preparation, phase 2" --inactive
  wbsctl element update P-100.01 --clear-description`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Code = args[0]
			opts.HasDesc = cmd.Flags().Changed("description")
			return pick(runF, runUpdate)(cmd.Context(), opts)
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
	return cmd
}

func runUpdate(ctx context.Context, o *UpdateOptions) error {
	req := &sdk.UpdateWBSElementRequest{}
	if o.FromFile != "" {
		if err := readJSON(o.F, o.FromFile, req); err != nil {
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
	c, err := o.F.Client()
	if err != nil {
		return err
	}
	ack, err := c.WBSElements.Update(ctx, o.Code, req)
	if err != nil {
		return err
	}
	return printAck(o.F, "updated", o.Code, ack)
}

// DeleteOptions are the inputs of `element delete`.
type DeleteOptions struct {
	F     *cmdutil.Factory
	Codes []string
}

// NewCmdDelete returns `wbsctl element delete`.
func NewCmdDelete(f *cmdutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{F: f}
	return &cobra.Command{
		Use:               "delete CODE...",
		ValidArgsFunction: f.CompleteCodes,
		Short:             "Delete WBS elements",
		Long: `Delete WBS elements. Every code is tried; when some fail and others succeed,
wbsctl exits with 6 (partial failure).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Codes = args
			return pick(runF, runDelete)(cmd.Context(), opts)
		},
	}
}

func runDelete(ctx context.Context, o *DeleteOptions) error {
	c, err := o.F.Client()
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
			cmdutil.PrintError(o.F.IO.ErrOut, err, false)
			failed = append(failed, err)
			continue
		}
		if err := printAck(o.F, "deleted", code, ack); err != nil {
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

// NewCmdOrgList returns `wbsctl element org list`.
func NewCmdOrgList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{F: f}
	cmd := &cobra.Command{
		Use:               "list CODE",
		ValidArgsFunction: f.CompleteCodes,
		Short:             "List the business organizations of a WBS element",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Code = args[0]
			opts.pageSizeSet = cmd.Flags().Changed("page-size")
			if err := opts.check(); err != nil {
				return err
			}
			return pick(runF, runOrgList)(cmd.Context(), opts)
		},
	}
	addListFlags(cmd, opts)
	return cmd
}

func runOrgList(ctx context.Context, o *ListOptions) error {
	c, err := o.F.Client()
	if err != nil {
		return err
	}
	p, err := o.F.Printer("TYPE", "CODE")
	if err != nil {
		return err
	}
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
	F    *cmdutil.Factory
	Code string
	Orgs []string
}

// NewCmdOrgRemove returns `wbsctl element org remove`.
func NewCmdOrgRemove(f *cmdutil.Factory, runF func(context.Context, *OrgRemoveOptions) error) *cobra.Command {
	opts := &OrgRemoveOptions{F: f}
	return &cobra.Command{
		Use:               "remove CODE TYPE=CODE...",
		ValidArgsFunction: completeLinks(f),
		Short:             "Remove business organizations from a WBS element",
		Example:           `  wbsctl element org remove P-100.01 company=1000 branch=B1`,
		Args:              cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Code, opts.Orgs = args[0], args[1:]
			return pick(runF, runOrgRemove)(cmd.Context(), opts)
		},
	}
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
			s := engine.FormatOrganizations([]sdk.BusinessOrganization{l.BusinessOrganization()})
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
	c, err := o.F.Client()
	if err != nil {
		return err
	}
	ack, err := c.WBSElements.DeleteBusinessOrganizations(ctx, o.Code, &sdk.DeleteBusinessOrganizationsRequest{BusinessOrganizations: orgs})
	if err != nil {
		return err
	}
	return printAck(o.F, "removed organizations from", o.Code, ack)
}

// printAck writes the acknowledgement: a line for people on stderr, the
// correlation id as data on stdout for scripts.
func printAck(f *cmdutil.Factory, verb, code string, ack *sdk.Acknowledgement) error {
	if f.Global.Output != "" || f.Global.JQ != "" || f.Global.Template != "" {
		p, err := f.Printer("CODE", "CORRELATION ID")
		if err != nil {
			return err
		}
		return p.Single(struct {
			Code          string `json:"wbsElementCode"`
			CorrelationID string `json:"correlationId"`
		}{code, ack.CorrelationID}, code, ack.CorrelationID)
	}
	fmt.Fprintf(f.IO.ErrOut, "%s %s (correlation id %s)\n", verb, strconv.Quote(code), ack.CorrelationID)
	return nil
}

// parseOrgs reads --org values in the notation of apply files: TYPE=CODE,
// where a backslash escapes '=', ';' and '\'; one value may hold several
// pairs separated by ';'.
func parseOrgs(args []string) ([]sdk.BusinessOrganization, error) {
	var out []sdk.BusinessOrganization
	for _, a := range args {
		orgs, err := engine.ParseOrganizations(a)
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

func readJSON(f *cmdutil.Factory, name string, v any) error {
	var r io.Reader = f.IO.In
	if name != "-" {
		file, err := os.Open(name)
		if err != nil {
			return &cmdutil.UsageError{Err: err}
		}
		defer file.Close()
		r = file
	}
	raw, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return &cmdutil.UsageError{Err: fmt.Errorf("--from-file %s: %w", name, err)}
	}
	if err := engine.DecodeStrict(raw, v); err != nil {
		return &cmdutil.UsageError{Err: fmt.Errorf("--from-file %s: %w", name, err)}
	}
	return nil
}

func pick[O any](runF, def func(context.Context, O) error) func(context.Context, O) error {
	if runF != nil {
		return runF
	}
	return def
}
