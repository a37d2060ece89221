// Package mapcmd is `wbsctl map`: a map file that reads an ERP's export
// (SAP, Oracle EBS, Dynamics 365, Business Central) as WBS elements,
// started from the export's header (map init) and checked against it
// (map check), without a credential of the platform or a request to it.
package mapcmd

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/erpmap"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// NewCmdMap returns `wbsctl map` and its subcommands.
func NewCmdMap(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "map",
		Short: "Start and check a map that reads an ERP's export as WBS elements",
		Long: `A map file says how an export as an ERP writes it becomes WBS elements:
which row is the header (title rows above it are skipped), which rows to
keep, and which column or expression gives the code, the description,
isActive and each type of organization. wbsctl map init writes a
starting map from an export's header; wbsctl map check prints what the
map makes of the export, as a wbsctl file, with the rows read, filtered,
mapped and invalid. Neither needs a credential or sends anything.

Expression functions:
` + erpmap.Functions(),
	}
	cmd.AddCommand(NewCmdInit(f, nil), NewCmdCheck(f, nil))
	return cmd
}

// ExportOptions say which export to read and how: the flags apply takes
// for its file.
type ExportOptions struct {
	File      string
	Format    string
	Sheet     string
	Delimiter string
	Encoding  string
}

func (e *ExportOptions) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&e.File, "file", "f", "", "the ERP's export, - for stdin")
	fl.StringVar(&e.Format, "format", "", "csv, xlsx, json or ndjson (default: by extension)")
	fl.StringVar(&e.Sheet, "sheet", "", "the sheet of an .xlsx workbook to read, a hidden one too (default: the first visible)")
	fl.StringVar(&e.Delimiter, "delimiter", "", "what separates the cells of CSV: ',', ';' or tab (default: found from the first lines)")
	fl.StringVar(&e.Encoding, "encoding", "", "the encoding of a text file: windows-1252, iso-8859-1 or utf-8 (default: UTF-8, or UTF-16 by its byte-order mark)")
	_ = cmd.MarkFlagRequired("file")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"csv", "xlsx", "json", "ndjson"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("encoding", cobra.FixedCompletions([]string{"windows-1252", "iso-8859-1", "utf-8"}, cobra.ShellCompDirectiveNoFileComp))
}

// read reads the export's rows.
func (e *ExportOptions) read(o cmdutil.Deps) (*erpmap.Table, error) {
	format, err := wbsfile.DetectFormat(e.File, e.Format)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: err}
	}
	if format == wbsfile.FormatYAML {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("%s: a map reads csv, xlsx, json and ndjson exports", e.File)}
	}
	opts := wbsfile.ReadOptions{Sheet: e.Sheet, Encoding: e.Encoding}
	if e.Delimiter != "" {
		if opts.Delimiter, err = wbsfile.ParseDelimiter(e.Delimiter); err != nil {
			return nil, &cmdutil.UsageError{Err: err}
		}
	}
	if err := opts.Check(format); err != nil {
		return nil, &cmdutil.UsageError{Err: err}
	}
	data, err := cmdutil.ReadFileOrStdin(o.IO.In, e.File, wbsfile.MaxFileBytes)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: err}
	}
	t, err := erpmap.ReadTable(data, format, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.File, err)
	}
	return t, nil
}

// InitOptions are the inputs of `wbsctl map init`.
type InitOptions struct {
	cmdutil.Deps
	Export ExportOptions
}

// NewCmdInit returns `wbsctl map init`.
func NewCmdInit(f *cmdutil.Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "init -f EXPORT",
		Short: "Write a starting map from an export's header",
		Long: `Write a starting map for an export on stdout, from its header: the row of
the first 50 with the most column names it knows. It knows the names of
SAP (PSP-Element/WBS Element/POSID, Bezeichnung/Description/POST1,
Buchungskreis/Company Code/PBUKR, Profitcenter/PRCTR, Werk/Plant/WERKS,
Kostenstelle/Cost Center/KOSTL, Systemstatus/System Status), Oracle EBS
(TASK_NUMBER, TASK_NAME, CHARGEABLE_FLAG…), Dynamics 365 (TaskName,
TaskStatus, TaskOwningCompany…) and Business Central (Job Task No.,
Description, Job Task Type…). A status column's values found below the
header become the entries of isActive.map; a column of zero-padded digits
is read without its zeros (alpha). What it cannot tell is left as a
commented placeholder, and the columns it does not know are listed at
the end. Read the map through, then see what it gives with map check.`,
		Example: `  wbsctl map init -f sap-export.xlsx > sap.wbsmap.yaml
  wbsctl map init -f dynamics-export.csv > dynamics.wbsmap.yaml`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.Pick(runF, runInit)(cmd.Context(), opts)
		},
	}
	opts.Export.addFlags(cmd)
	return cmd
}

func runInit(ctx context.Context, o *InitOptions) error {
	t, err := o.Export.read(o.Deps)
	if err != nil {
		return err
	}
	defer t.Close()
	source := o.Export.File
	if source == "-" {
		source = "the export on stdin"
	}
	text, err := erpmap.Suggest(t, filepath.Base(source))
	if err != nil {
		return fmt.Errorf("%s: %w: %w", o.Export.File, err, sdk.ErrValidation)
	}
	if _, err := cmdutil.DataOut(o.IO).Write(text); err != nil {
		return err
	}
	fmt.Fprintln(o.IO.ErrOut, "check the map, then: wbsctl map check -f "+output.Escape(o.Export.File)+" --map MAP")
	return nil
}

// CheckOptions are the inputs of `wbsctl map check`.
type CheckOptions struct {
	cmdutil.Deps
	Export ExportOptions
	// Map is the map file.
	Map string
	// AllowInvisibleCodes lets a code hold a character that shows as
	// nothing, as apply's flag does.
	AllowInvisibleCodes bool
	// NoHeaders is --no-headers: the CSV is then written without its
	// header row, as other commands' CSV is.
	NoHeaders bool
}

// NewCmdCheck returns `wbsctl map check`.
func NewCmdCheck(f *cmdutil.Factory, runF func(context.Context, *CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "check -f EXPORT --map MAP",
		Short: "Print what a map makes of an export, as a wbsctl file",
		Long: `Read an export through a map and print the WBS elements it gives, as a
wbsctl file (CSV on a pipe, a table on a terminal; -o json, yaml or
ndjson), with on stderr every problem, naming the export's cell and the
map's line, and the rows read, filtered by where, mapped and invalid.
A map that does not fit the export's header (a column it lacks, a name
it gives twice, a merged header cell, a header not in the first 50 rows)
is refused before a row is read. It sends nothing. It exits 5 when the
map or a row has a problem.

The file printed states every field, as export writes one: where the map
has no description or isActive, apply --map keeps the element's; where
it has organizations, apply --map states the links of the types it
names and leaves the others alone. --map defaults to WBSCTL_MAP.`,
		Example: `  wbsctl map check -f sap-export.xlsx --map sap.wbsmap.yaml
  wbsctl map check -f sap-export.xlsx --map sap.wbsmap.yaml -o json
  wbsctl map check -f dynamics-export.csv --map dynamics.wbsmap.yaml > elements.csv`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Map = cmp.Or(opts.Map, f.Getenv("WBSCTL_MAP"))
			opts.NoHeaders = f.Global.NoHeaders
			if opts.Map == "" {
				return &cmdutil.UsageError{Err: errors.New("give the map file with --map (or WBSCTL_MAP)")}
			}
			return cmdutil.Pick(runF, runCheck)(cmd.Context(), opts)
		},
	}
	opts.Export.addFlags(cmd)
	cmd.Flags().StringVar(&opts.Map, "map", "", "the map `FILE` (env WBSCTL_MAP)")
	cmd.Flags().BoolVar(&opts.AllowInvisibleCodes, "allow-invisible-codes", false, "let a code hold a character that shows as nothing, as apply's flag does")
	f.AddOutputFlags(cmd, output.CSV, output.JSON, output.YAML, output.NDJSON, output.Table)
	// What a pipe gets is a file apply reads, not rows of a listing.
	cmd.Flags().Lookup("output").Usage = "output `FORMAT`: csv, json, yaml, ndjson or table (default: a table on a terminal, a CSV file on a pipe)"
	return cmd
}

// maxMapFileBytes bounds the map file read.
const maxMapFileBytes = 1 << 20

func runCheck(ctx context.Context, o *CheckOptions) error {
	data, err := cmdutil.ReadFileOrStdin(o.IO.In, o.Map, maxMapFileBytes)
	if err != nil {
		return &cmdutil.UsageError{Err: fmt.Errorf("--map: %w", err)}
	}
	m, err := erpmap.Parse(o.Map, data)
	if err != nil {
		return err
	}
	t, err := o.Export.read(o.Deps)
	if err != nil {
		return err
	}
	defer t.Close()
	res, err := m.Read(t, wbsfile.Checks{AllowInvisibleCodes: o.AllowInvisibleCodes})
	if err != nil {
		return err
	}
	report(o, m, res)
	if err := printRecords(o, res.File.Records); err != nil {
		return err
	}
	if n := len(res.File.Problems); n > 0 {
		return fmt.Errorf("%s through %s: %s, the rows named above left out: %w", o.Export.File, o.Map, output.Count(n, "problem"), sdk.ErrValidation)
	}
	return nil
}

// report writes on stderr the notes, the problems and the counts of
// reading the export through m.
func report(o *CheckOptions, m *erpmap.Map, res *erpmap.Result) {
	w := o.IO.ErrOut
	for _, n := range res.File.Notes {
		fmt.Fprintln(w, "note: "+output.Escape(n))
	}
	if !m.StatesOrganizations() {
		fmt.Fprintln(w, "note: the map has no organizations: apply --map leaves every element's links alone (the file printed lists none)")
	} else if types := m.OwnedTypes(); len(types) > 0 {
		fmt.Fprintln(w, "note: the map owns the links of "+output.Escape(strings.Join(types, ", "))+": apply --map leaves links of other types alone")
	}
	for _, p := range res.File.Problems {
		fmt.Fprintln(w, output.Escape(p.String()))
	}
	where := ""
	if res.HeaderRow != "" {
		where = " below the header (" + res.HeaderRow + ")"
	}
	c := res.Counts
	fmt.Fprintf(w, "%s: read %s%s: %d filtered by where, %d mapped to %s, %d invalid\n", output.Escape(o.Export.File),
		output.Count(c.Rows, "row"), where, c.Filtered, c.Mapped, output.Count(c.Elements, "element"), c.Invalid)
}

// printRecords writes the records as a wbsctl file in the format of -o
// (CSV on a pipe), or as a table and through --jq and --template with
// the output printer.
func printRecords(o *CheckOptions, records []wbsfile.Record) error {
	mode := o.Mode()
	format := wbsfile.Format(cmp.Or(string(mode.Format), "csv"))
	if mode.Format == "" && o.IO.IsStdoutTTY() || mode.Format == output.Table || mode.Filter || mode.Format == output.CSV && o.NoHeaders {
		p, err := o.Printer(slices.Concat([]string{"CODE"}, wbsfile.TextHeadings(), []string{"ACTIVE", "ORGANIZATIONS"})...)
		if err != nil {
			return err
		}
		for _, r := range records {
			if err := p.Add(r.Item(), r.Cells()...); err != nil {
				return err
			}
		}
		return p.Flush()
	}
	out := bufio.NewWriter(cmdutil.DataOut(o.IO))
	w, err := wbsfile.NewRecordWriter(out, format)
	if err != nil {
		return err
	}
	for _, r := range records {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return out.Flush()
}
