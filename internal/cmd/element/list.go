package element

import (
	"cmp"
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk"
)

// ListOptions are the inputs of `element list` and `element org list`.
type ListOptions struct {
	cmdutil.Deps
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
	cmd.Flags().IntVar(&o.PageSize, "page-size", 0, "items per page (default: the platform's, 10, for one page; 100 with --all or --limit, the fewest requests)")
	cmd.Flags().BoolVar(&o.All, "all", false, "list every page, streaming")
	cmd.Flags().IntVarP(&o.Limit, "limit", "L", 0, "read pages until this many items are listed")
	cmd.Flags().IntVar(&o.MaxPages, "max-pages", cmdutil.DefaultMaxPages, "with --all: stop after this many pages, as a guard against a list that never ends")
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
	opts := &ListOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List WBS elements",
		Example: `  wbsctl element list --all -o csv > elements.csv
  wbsctl element list --all --jq '.[] | select(.isActive | not) | .wbsElementCode'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.pageSizeSet = cmd.Flags().Changed("page-size")
			if err := opts.check(); err != nil {
				return err
			}
			return cmdutil.Pick(runF, runList)(cmd.Context(), opts)
		},
	}
	addListFlags(cmd, opts)
	return cmd
}

func runList(ctx context.Context, o *ListOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	p, err := o.Printer("CODE", "DESCRIPTION", "ACTIVE")
	if err != nil {
		return err
	}
	defer p.Sync() // what was listed before an error is written out
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
	if mayHaveMore(page, o.PageSize) {
		// On a pipe too: a script that forgot --all would otherwise
		// read one page as the whole list.
		fmt.Fprintf(o.IO.ErrOut, "showing page %d (%d elements); more may follow: --page %d, --limit N or --all\n", page.PageNumber, len(page.Data), page.PageNumber+1)
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
