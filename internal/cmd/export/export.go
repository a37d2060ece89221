package export

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/erpmap"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// ExportOptions are the inputs of `wbsctl export`.
type ExportOptions struct {
	cmdutil.Deps
	Format   wbsfile.Format
	PageSize int
	// Write says how to write CSV: the delimiter, and a byte-order mark.
	Write wbsfile.WriteOptions
	// Concurrency bounds the reads of links in flight.
	Concurrency int
	// Map is a column map (internal/erpmap) turned round: the export is
	// written in the ERP's columns, as apply --map reads it back.
	Map string
}

// NewCmdExport returns `wbsctl export`.
func NewCmdExport(f *cmdutil.Factory, runF func(context.Context, *ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{Deps: f.Deps()}
	var delimiter, format string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write every WBS element with its organizations, in a format apply reads",
		Long: `Write every WBS element with its business organizations as CSV (the
default), JSON, NDJSON, YAML or an Excel workbook (--format xlsx: one sheet, its
header row frozen, each column as wide as its widest cell), in the formats
wbsctl apply reads: applying an export changes nothing. For Excel, CSV
takes --delimiter ';' where Excel expects it and --bom, by which Excel
reads it as UTF-8. It reads the element list and, for
each element, its organizations, --concurrency at a time. Each element is
written as soon as its organizations are read, in the list's order, so
that an export of any size holds only a few elements at a time. An error
ends the file after the last element written whole, and says where the
export stopped.

With --map, the export is written in an ERP's columns, as the column map
reads them (apply --map, wbsctl map): its header, and each element's
cells such that apply --map reads them back to the same element. A map
turns round where each field comes from a column (with alpha, or through
trim) and isActive from a column or its words; an expression otherwise
is refused, naming the map's line. An element the map cannot write so
(two links of one type, a value the map gives every row otherwise) is
left out and named, as an element apply would refuse; the links of types
the map does not name are not written, as apply --map leaves them alone.
The map's where is not applied: every element is written. CSV, xlsx,
JSON and NDJSON.`,
		Example: `  wbsctl export > elements.csv
  wbsctl export --format yaml > elements.yaml
  wbsctl export --format xlsx > elements.xlsx
  wbsctl export --delimiter ';' --bom > elements-excel.csv
  wbsctl export --map sap.wbsmap.yaml --format xlsx > sap-export.xlsx`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			given := "--format"
			switch o := f.Global.Output; {
			case o != "" && format != "" && o != format:
				return &cmdutil.UsageError{Err: fmt.Errorf("--format %s and -o %s: give --format alone", format, o)}
			case o != "" && format == "":
				// What -o meant before --format: kept for one release.
				format, given = o, "-o"
			}
			var err error
			if opts.Format, err = wbsfile.ParseFormat(cmp.Or(format, "csv")); err != nil {
				return &cmdutil.UsageError{Err: fmt.Errorf("%s %q: export writes a file apply reads: csv, json, ndjson, yaml or xlsx", given, format)}
			}
			if given == "-o" {
				fmt.Fprintf(opts.IO.ErrOut, "warning: export -o %s is deprecated and will be refused: use --format %s\n", format, format)
			}
			if opts.PageSize < 1 {
				return &cmdutil.UsageError{Err: errors.New("--page-size must be at least 1")}
			}
			if opts.Concurrency < 1 {
				return &cmdutil.UsageError{Err: errors.New("--concurrency must be at least 1")}
			}
			if delimiter != "" {
				var err error
				if opts.Write.Delimiter, err = wbsfile.ParseDelimiter(delimiter); err != nil {
					return &cmdutil.UsageError{Err: err}
				}
			}
			if (opts.Write.Delimiter != 0 || opts.Write.BOM) && opts.Format != wbsfile.FormatCSV {
				return &cmdutil.UsageError{Err: fmt.Errorf("--delimiter and --bom are options of CSV, not of %s %s", given, opts.Format)}
			}
			if opts.Format == wbsfile.FormatXLSX && opts.IO.IsStdoutTTY() {
				return &cmdutil.UsageError{Err: fmt.Errorf("%s xlsx writes a workbook, which a terminal cannot show: redirect it to a file (> elements.xlsx)", given)}
			}
			return cmdutil.Pick(runF, runExport)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "file format: csv, json, ndjson, yaml or xlsx (default csv)")
	// What -o meant before --format, kept hidden for one release; the
	// warning says so where it is used.
	cmd.Flags().StringVarP(&f.Global.Output, "output", "o", "", "the file format: use --format")
	_ = cmd.Flags().MarkHidden("output")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"csv", "json", "ndjson", "yaml", "xlsx"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().IntVar(&opts.PageSize, "page-size", 100, "items per page of the reads: the largest the platform answers costs the fewest requests")
	cmd.Flags().IntVar(&opts.Concurrency, "concurrency", 4, "reads of organizations in flight")
	cmd.Flags().StringVar(&delimiter, "delimiter", "", "with CSV: what separates the cells, such as ';' or tab (default ',')")
	cmd.Flags().BoolVar(&opts.Write.BOM, "bom", false, "with CSV: start with UTF-8's byte-order mark, so that Excel reads the file as UTF-8")
	cmd.Flags().StringVar(&opts.Map, "map", "", "write the ERP's columns, as this column `MAP` reads them back (apply --map)")
	return cmd
}

func runExport(ctx context.Context, o *ExportOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	out := bufio.NewWriter(cmdutil.DataOut(o.IO))
	w, err := o.recordWriter(out)
	if err != nil {
		return err
	}
	// An element the file cannot hold, or that apply would refuse, is
	// left out and named; the others are written, and the export ends
	// as a partial one (exit 6).
	var skipped []string
	write := func(r wbsfile.Record) error {
		err := w.Write(r)
		if unwritable := (*wbsfile.UnwritableError)(nil); errors.As(err, &unwritable) {
			fmt.Fprintf(o.IO.ErrOut, "error: %s\n", output.EscapeLines(err.Error()))
			skipped = append(skipped, r.Code)
			return nil
		}
		return err
	}
	n, last, err := export(ctx, c, o.PageSize, o.Concurrency, write)
	// What was written is a whole file, ended, whatever stopped it.
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil && n > 0 {
		return fmt.Errorf("export stopped after %s, the last written %q: %w", output.Count(n, "element"), last, err)
	}
	if err != nil {
		return fmt.Errorf("export stopped before the first element: %w", err)
	}
	if mw, ok := w.(*mapWriter); ok {
		mw.notes(o.IO.ErrOut)
	}
	if len(skipped) > 0 {
		return &cmdutil.PartialError{Failed: len(skipped), Total: n, What: "elements were left out of the export, named above; the others were written"}
	}
	return nil
}

// export reads every element and, concurrency at a time, its links, and
// gives each element to write as soon as it and those before it are read:
// in the list's order, holding no more than concurrency elements. It
// returns how many were written and the last.
func export(ctx context.Context, c *sdk.Client, pageSize, concurrency int, write func(wbsfile.Record) error) (written int, last string, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type slot struct {
		rec  wbsfile.Record
		err  error
		done chan struct{}
	}
	// The slots in the list's order: those queued and the one being
	// written out are the reads in flight, concurrency at most.
	queue := make(chan *slot, concurrency-1)
	go func() {
		defer close(queue)
		for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: pageSize, MaxPages: cmdutil.DefaultMaxPages}) {
			s := &slot{done: make(chan struct{})}
			if err != nil {
				s.err = err
				close(s.done)
				queue <- s
				return
			}
			select {
			case queue <- s:
			case <-ctx.Done():
				return
			}
			go func() {
				defer close(s.done)
				s.rec, s.err = exportRecord(ctx, c, el, pageSize)
			}()
		}
	}()
	defer func() {
		// Stop what is in flight and let it end.
		cancel()
		for s := range queue {
			<-s.done
		}
	}()
	for s := range queue {
		<-s.done
		if s.err != nil {
			return written, last, s.err
		}
		if err := write(s.rec); err != nil {
			return written, last, err
		}
		written, last = written+1, s.rec.Code
	}
	return written, last, nil
}

// exportRecord is el with every link it has, as a record of a file.
func exportRecord(ctx context.Context, c *sdk.Client, el sdk.WBSElement, pageSize int) (wbsfile.Record, error) {
	r := wbsfile.Record{Code: el.Code, Texts: wbsfile.ElementTexts(&el), IsActive: sdk.Ptr(el.IsActive), OrganizationsSet: true, Organizations: []sdk.BusinessOrganization{}}
	for l, err := range c.WBSElements.AllBusinessOrganizationsOfExisting(ctx, el.Code, &sdk.ListOptions{PageSize: pageSize}) {
		if err != nil {
			return r, fmt.Errorf("organizations of %q: %w", el.Code, err)
		}
		r.Organizations = append(r.Organizations, l.BusinessOrganization())
	}
	return r, nil
}

// recordWriter is what export writes records with: wbsctl's own file,
// or a mapWriter.
type recordWriter interface {
	Write(wbsfile.Record) error
	Close() error
}

// recordWriter is the writer of --format, or of --map.
func (o *ExportOptions) recordWriter(out io.Writer) (recordWriter, error) {
	if o.Map == "" {
		return wbsfile.NewRecordWriterWith(out, o.Format, o.Write)
	}
	source, err := os.ReadFile(o.Map)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--map: %w", err)}
	}
	m, err := erpmap.Parse(o.Map, source)
	if err != nil {
		return nil, err
	}
	mw := &mapWriter{m: m, unwritten: map[string]int{}}
	if mw.w, err = m.Writer(); err != nil {
		return nil, err
	}
	if mw.tw, err = erpmap.NewTableWriter(out, o.Format, o.Write, mw.w.Header(), m.HeaderRow()); err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--map %s: %w", o.Map, err)}
	}
	return mw, nil
}

// mapWriter writes records in the columns of a column map, and counts
// the links it leaves out, of types the map does not name.
type mapWriter struct {
	m         *erpmap.Map
	w         *erpmap.Writer
	tw        *erpmap.TableWriter
	unwritten map[string]int
}

func (mw *mapWriter) Write(r wbsfile.Record) error {
	row, err := mw.w.Row(r)
	if err != nil {
		return err
	}
	for _, t := range mw.w.Unwritten(r) {
		mw.unwritten[t]++
	}
	return mw.tw.Write(row)
}

func (mw *mapWriter) Close() error { return mw.tw.Close() }

// notes says on w what the export through the map left out.
func (mw *mapWriter) notes(w io.Writer) {
	if len(mw.unwritten) > 0 {
		counts := make([]string, 0, len(mw.unwritten))
		for _, t := range slices.Sorted(maps.Keys(mw.unwritten)) {
			counts = append(counts, fmt.Sprintf("%s (%s)", output.Escape(t), output.Count(mw.unwritten[t], "element")))
		}
		fmt.Fprintf(w, "note: the links of types %s does not name were left out: %s; apply --map leaves them alone\n", output.Escape(mw.m.Name()), strings.Join(counts, ", "))
	}
	if mw.m.HasWhere() {
		fmt.Fprintf(w, "note: %s's where is not applied on the way back: every element was written\n", output.Escape(mw.m.Name()))
	}
}
