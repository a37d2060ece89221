package element

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
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
	// With a filter, it counts the items that match.
	Limit    int
	MaxPages int

	// CodePatterns, Active and Inactive filter `element list`, page by
	// page as the pages arrive: an element is listed when its code
	// matches one of the patterns (path.Match; none matches every code)
	// and its flag is the one asked, if one is.
	CodePatterns     []string
	Active, Inactive bool

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
	for _, p := range o.CodePatterns {
		if _, err := path.Match(p, ""); err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("--code %q: %v (a glob: * ? [a-z] [^a-z], \\ before a character to take it as it is)", p, err)}
		}
	}
	return nil
}

// filtered reports whether --code, --active or --inactive is given.
func (o *ListOptions) filtered() bool {
	return len(o.CodePatterns) > 0 || o.Active || o.Inactive
}

// matches reports whether el passes the filters.
func (o *ListOptions) matches(el sdk.WBSElement) bool {
	if (o.Active && !el.IsActive) || (o.Inactive && el.IsActive) {
		return false
	}
	for _, p := range o.CodePatterns {
		if ok, _ := path.Match(p, el.Code); ok {
			return true
		}
	}
	return len(o.CodePatterns) == 0
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
		Long: `List WBS elements: one page of the platform's list (--page, --page-size),
every page (--all), or pages until --limit elements are listed.

--code, --active and --inactive filter the list in wbsctl, as its pages
arrive: the platform has no filter, so the pages are read as they are
without one. --code PATTERN is a glob, as Go's path.Match reads it: *
is any run of characters but /, ? one character, [a-z] a class, [^a-z]
its complement, and \ takes the next character as it is. Give --code
more than once to list the elements that match any of the patterns.
Without --all or --limit, the filters apply to the one page read; with
--limit N, N counts the elements that match. To look at elements by
their exact codes, with their organizations, see element view.`,
		Example: `  wbsctl element list --all -o csv > elements.csv
  wbsctl element list --all --jq '.[] | select(.isActive | not) | .wbsElementCode'
  wbsctl element list --all --code 'P-100.*' --code 'P-2??' --inactive
  wbsctl element list --limit 5 --code 'P-100.*' --active`,
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
	cmd.Flags().StringArrayVar(&opts.CodePatterns, "code", nil, "list only the elements whose code matches this glob `PATTERN` (* ? [a-z]; * stops at /); repeat for any of several")
	cmd.Flags().BoolVar(&opts.Active, "active", false, "list only the active elements")
	cmd.Flags().BoolVar(&opts.Inactive, "inactive", false, "list only the inactive elements")
	cmd.MarkFlagsMutuallyExclusive("active", "inactive")
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

func runList(ctx context.Context, o *ListOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	p, err := o.Printer(slices.Concat([]string{"CODE"}, wbsfile.TextHeadings(), []string{"ACTIVE"})...)
	if err != nil {
		return err
	}
	defer p.Sync() // what was listed before an error is written out
	lo := o.listOptions()
	if o.All || o.Limit > 0 {
		if err := o.addPages(ctx, c, lo, p); err != nil {
			return err
		}
		return p.Flush()
	}
	page, shown, err := o.addPage(ctx, c, lo, p)
	if err != nil {
		return err
	}
	if err := p.Flush(); err != nil {
		return err
	}
	if mayHaveMore(page, o.PageSize) {
		o.sayMore(page, shown)
	}
	return nil
}

// addElement adds el to p as a row: its code, texts and flag.
func addElement(p *output.Printer, el sdk.WBSElement) error {
	return p.Add(el, slices.Concat([]string{el.Code}, wbsfile.ElementCells(&el), []string{strconv.FormatBool(el.IsActive)})...)
}

// addPages adds to p the elements that match, page after page, until the
// list ends or --limit of them are added.
func (o *ListOptions) addPages(ctx context.Context, c *sdk.Client, lo *sdk.ListOptions, p *output.Printer) error {
	n := 0
	for el, err := range c.WBSElements.All(ctx, lo) {
		if err != nil {
			return err
		}
		if !o.matches(el) {
			continue
		}
		if err := addElement(p, el); err != nil {
			return err
		}
		if n++; n == o.Limit {
			break
		}
	}
	return nil
}

// addPage reads the one page of lo and adds to p its elements that
// match, returning the page and how many were added.
func (o *ListOptions) addPage(ctx context.Context, c *sdk.Client, lo *sdk.ListOptions, p *output.Printer) (*sdk.Page[sdk.WBSElement], int, error) {
	page, err := c.WBSElements.List(ctx, lo)
	if err != nil {
		return nil, 0, err
	}
	shown := 0
	for _, el := range page.Data {
		if !o.matches(el) {
			continue
		}
		shown++
		if err := addElement(p, el); err != nil {
			return nil, 0, err
		}
	}
	return page, shown, nil
}

// sayMore says on standard error that a page read alone may not be the
// whole list, and how to read on; shown of its elements were listed.
func (o *ListOptions) sayMore(page *sdk.Page[sdk.WBSElement], shown int) {
	// On a pipe too: a script that forgot --all would otherwise
	// read one page as the whole list.
	what := output.Count(len(page.Data), "element")
	if o.filtered() {
		what = fmt.Sprintf("%d of its %d elements match", shown, len(page.Data))
	}
	fmt.Fprintf(o.IO.ErrOut, "showing page %d (%s); more may follow: --page %d, --limit N or --all\n", page.PageNumber, what, page.PageNumber+1)
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
