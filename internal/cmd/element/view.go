package element

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/notation"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// ViewOptions are the inputs of `element view`.
type ViewOptions struct {
	cmdutil.Deps
	Codes []string
	// Quiet leaves out the note of what finding an element costs.
	Quiet bool
}

// NewCmdView returns `wbsctl element view`.
func NewCmdView(f *cmdutil.Factory, runF func(context.Context, *ViewOptions) error) *cobra.Command {
	opts := &ViewOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:               "view CODE...",
		Aliases:           []string{"get"},
		SuggestFor:        []string{"show"},
		ValidArgsFunction: f.CompleteCodes,
		Short:             "Show WBS elements and their business organizations",
		Long: `Show each named WBS element, its description, active flag and business
organizations, in the order given (a code given twice is shown once).

The platform has no read of one element: view reads the element list,
100 elements a request, until it has found every code, then each found
element's organizations (one request for up to 100 of them). Finding one
element costs up to N/100 list requests, rounded up, on a platform of N
elements; a code that is not there costs them all. A note on stderr says
so, on a terminal and on a pipe; --quiet leaves it out.

The JSON form (-o json, yaml, ndjson, --jq, --template) is a list, one
item per element however many codes are given: the members of the
element list's items, and businessOrganizations as the platform lists
them. A table has one row per element, its organizations in the
TYPE=CODE;TYPE=CODE notation of --org.

A code the list does not hold exits 3 (not found), naming it, after the
elements that were found are shown; when none is found, nothing is
printed on stdout (no header, no empty list).`,
		Example: `  wbsctl element view P-100.01
  wbsctl element get P-100.01 P-100.02 -o json --jq '.[].businessOrganizations'`,
		Args: cmdutil.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Codes = args
			return cmdutil.Pick(runF, runView)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Quiet, "quiet", "q", false, "leave out the note of what finding an element costs")
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

// elementView is an element as view shows it: the element list's item
// and the links of the element as the platform lists them.
type elementView struct {
	sdk.WBSElement
	BusinessOrganizations []sdk.LinkedBusinessOrganization `json:"businessOrganizations"`
}

// costNote is what view says on stderr before it reads the list.
const costNote = "note: the platform has no read of one element: wbsctl reads the element list, 100 elements a request, " +
	"until it has found every code (up to N/100 requests, rounded up, on a platform of N elements), " +
	"then each element's organizations (--quiet leaves this note out)"

func runView(ctx context.Context, o *ViewOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	p, err := o.Printer(slices.Concat([]string{"CODE"}, wbsfile.TextHeadings(), []string{"ACTIVE", "ORGANIZATIONS"})...)
	if err != nil {
		return err
	}
	codes := distinct(o.Codes)
	if !o.Quiet {
		fmt.Fprintln(o.IO.ErrOut, costNote)
	}
	found, read, err := findElements(ctx, c, codes)
	if err != nil {
		return err
	}
	if len(found) == 0 {
		// Nothing to show: no table header and no empty list above the
		// error, as kubectl get of a missing name prints nothing.
		return notFound(codes, read)
	}
	defer p.Sync() // what was shown before an error is written out
	var missing []string
	for _, code := range codes {
		el, ok := found[code]
		if !ok {
			missing = append(missing, code)
			continue
		}
		v := elementView{WBSElement: el, BusinessOrganizations: []sdk.LinkedBusinessOrganization{}}
		// The list has just shown the element: a 404 of its links is
		// a platform's answer to an empty list.
		for l, err := range c.WBSElements.AllBusinessOrganizationsOfExisting(ctx, code, &sdk.ListOptions{MaxPages: cmdutil.DefaultMaxPages}) {
			if err != nil {
				return err
			}
			v.BusinessOrganizations = append(v.BusinessOrganizations, l)
		}
		if err := p.Add(v, viewRow(v)...); err != nil {
			return err
		}
	}
	if err := p.Flush(); err != nil {
		return err
	}
	if len(missing) > 0 {
		return notFound(missing, read)
	}
	return nil
}

// findElements reads the element list a page at a time until it has
// found every code, and returns the elements found by code and how many
// elements it read.
func findElements(ctx context.Context, c *sdk.Client, codes []string) (map[string]sdk.WBSElement, int, error) {
	wanted := make(map[string]bool, len(codes))
	for _, code := range codes {
		wanted[code] = true
	}
	found := make(map[string]sdk.WBSElement, len(codes))
	read := 0
	for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{MaxPages: cmdutil.DefaultMaxPages}) {
		if err != nil {
			return nil, read, err
		}
		read++
		if _, dup := found[el.Code]; !wanted[el.Code] || dup {
			continue
		}
		found[el.Code] = el
		if len(found) == len(wanted) {
			break // the pages after this one are never asked for
		}
	}
	return found, read, nil
}

// viewRow is the table row of v.
func viewRow(v elementView) []string {
	orgs := make([]sdk.BusinessOrganization, len(v.BusinessOrganizations))
	for i, l := range v.BusinessOrganizations {
		orgs[i] = l.BusinessOrganization()
	}
	return slices.Concat([]string{v.Code}, wbsfile.ElementCells(&v.WBSElement), []string{strconv.FormatBool(v.IsActive), notation.Format(orgs)})
}

// notFound is the error of the codes the list does not hold, after read
// elements: it matches sdk.ErrNotFound, exit 3.
func notFound(codes []string, read int) error {
	quoted := make([]string, len(codes))
	for i, code := range codes {
		quoted[i] = strconv.Quote(code)
	}
	what, such := "element", "no such code"
	if len(codes) > 1 {
		what, such = "elements", "none of those codes"
	}
	listed := "the element list is empty"
	switch read {
	case 0:
	case 1:
		listed = "the one element listed has another code"
	default:
		listed = fmt.Sprintf("the %d elements listed hold %s", read, such)
	}
	return fmt.Errorf("%s %s %w: %s", what, strings.Join(quoted, ", "), sdk.ErrNotFound, listed)
}

// distinct is codes without repeats, in the order of their first mention.
func distinct(codes []string) []string {
	seen := make(map[string]bool, len(codes))
	out := make([]string, 0, len(codes))
	for _, code := range codes {
		if !seen[code] {
			seen[code] = true
			out = append(out, code)
		}
	}
	return out
}
