package element

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// CreateOptions are the inputs of `element create`.
type CreateOptions struct {
	cmdutil.Deps
	Code string
	// Texts are the text flags given, "" too; nil where not given.
	Texts    wbsfile.Texts
	Inactive bool
	Orgs     []string
	FromFile string
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
			if (opts.Code == "") == (opts.FromFile == "") {
				return &cmdutil.UsageError{Err: errors.New("give either CODE or --from-file")}
			}
			return cmdutil.Pick(runF, runCreate)(cmd.Context(), opts)
		},
	}
	textFlags(cmd, &opts.Texts, func(f wbsfile.TextField) string {
		return fmt.Sprintf("%s (at most %d characters)", f.Name, f.Max)
	})
	cmd.Flags().BoolVar(&opts.Inactive, "inactive", false, "create the element inactive")
	cmd.Flags().StringArrayVar(&opts.Orgs, "org", nil, "business organization as TYPE=CODE (repeatable)")
	cmd.Flags().StringVar(&opts.FromFile, "from-file", "", "read the JSON body from a file, or - for stdin")
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

func runCreate(ctx context.Context, o *CreateOptions) error {
	req := &sdk.CreateWBSElementRequest{Code: o.Code}
	if o.FromFile != "" {
		if err := readJSON(o.IO.In, o.FromFile, req); err != nil {
			return err
		}
	} else {
		for _, f := range wbsfile.TextFields {
			*f.Create(req) = *f.Of(&o.Texts)
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
	if errors.Is(err, sdk.ErrDuplicate) {
		return existsError(req.Code, err)
	}
	if err != nil {
		return err
	}
	return printAck(o.IO, o.Printer, o.Mode().Structured(), "created", req.Code, ack)
}

// existsError is the platform's refusal of a create because the element
// exists (sdk.ErrDuplicate, exit 9), with the next step: change it with
// element update, or apply a file, which creates or updates.
func existsError(code string, err error) error {
	word := shellWord(code)
	update := word + " …"
	if strings.HasPrefix(code, "-") {
		update = "… -- " + word // the flags first: after --, no word is one
	}
	return &cmdutil.HintError{
		Err:  fmt.Errorf("%s exists: %w", word, err),
		Hint: fmt.Sprintf(`change it with "wbsctl element update %s", or use "wbsctl apply -f FILE", which creates or updates`, update),
	}
}

// shellWord is s as one word of a POSIX shell: as it is when it holds
// only characters a shell takes literally, else in single quotes.
func shellWord(s string) string {
	const literal = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/@%+="
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune(literal, r) }) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
