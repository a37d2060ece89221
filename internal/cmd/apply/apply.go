// Package apply holds `wbsctl apply`: bulk loading a file of WBS
// elements, or carrying out a saved plan, through internal/engine.
package apply

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/erpmap"
	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/ratelimit"
	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// Options are the inputs of `wbsctl apply`.
type Options struct {
	cmdutil.Deps
	File             string
	Format           string
	DryRun           bool
	ShowUnchanged    bool
	DetailedExitcode bool
	Prune            bool
	Yes              bool
	SkipInvalid      bool
	// Check reads and checks the file alone: no credential, no request.
	Check bool
	// MaxDeletes refuses a plan that deletes more elements; -1 is no
	// bound.
	MaxDeletes  int
	Concurrency int
	PageSize    int
	MaxPages    int
	State       string
	Refresh     bool
	// MaxDuration bounds a dry run's reads of links (0: no bound).
	MaxDuration time.Duration
	started     time.Time // when the command started
	// VerifyBudget is --verify-budget, read by check into verifyBudget.
	VerifyBudget string
	verifyBudget engine.VerifyBudget
	// LockTimeout is how long to wait for another run's lock of the
	// state; BreakStaleAfter breaks a shared state's lock not renewed
	// for that long.
	LockTimeout, BreakStaleAfter time.Duration
	// stateFromEnv is a State that WBSCTL_STATE gave.
	stateFromEnv bool
	// JobURL is the CI job's address, for the state's lock to name.
	JobURL string
	// Out saves the plan of a dry run; Plan carries out a saved one.
	Out, Plan string
	Rate      string
	Report    string
	Quiet     bool
	// ProgressInterval is the time between two progress lines where
	// stderr is no terminal (a CI job's log).
	ProgressInterval time.Duration
	// StepSummary is a file that the plan or the results are appended
	// to as Markdown: GitHub Actions' $GITHUB_STEP_SUMMARY, unless
	// --no-step-summary or WBSCTL_NO_STEP_SUMMARY=1.
	StepSummary string
	// CodeQuality is a file to write the problems of the file to, as a
	// GitLab Code Quality report.
	CodeQuality string
	// Annotate prints each problem of the file as a GitHub Actions
	// workflow command too, on the file's own line (GITHUB_ACTIONS=true).
	Annotate bool
	// CI is the CI service the run is a job of, for the next step a
	// refusal names: "github" (GITHUB_ACTIONS=true), "gitlab"
	// (GITLAB_CI set) or "".
	CI string
	// Commit is the commit the file is of, as the CI job names it; nil
	// outside CI. AllowOlderCommit lets a run of a commit older than the
	// state's last apply go on.
	Commit           *statestore.Commit
	AllowOlderCommit bool

	// Sheet, Delimiter and Encoding say how to read the file where its
	// bytes do not.
	Sheet, Delimiter, Encoding string
	// Map is an ERP column map (internal/erpmap) through which the file
	// is read; its owned entity types are the only ones a plan changes.
	Map string
	// AllowInvisibleCodes accepts codes that hold a character that shows
	// as nothing or a bidi control, which are otherwise invalid records.
	AllowInvisibleCodes bool
	// Stop, ended by the first SIGINT or SIGTERM, stops starting new
	// work; the run's context, ended by the second, stops now. Nil in a
	// test that sends no signal.
	Stop context.Context
}

// interrupted is the error of a run that Stop ended: the signal its cause
// names, SIGINT's when none does (a test that ends Stop itself).
func (o *Options) interrupted() *cmdutil.Interrupted {
	var sig *cmdutil.Interrupted
	if o.Stop != nil && errors.As(context.Cause(o.Stop), &sig) {
		return sig
	}
	return &cmdutil.Interrupted{Signal: syscall.SIGINT}
}

// stopped reports whether Stop ended: the first signal came.
func (o *Options) stopped() bool { return o.Stop != nil && o.Stop.Err() != nil }

// NewCmdApply returns `wbsctl apply`.
func NewCmdApply(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: f.Deps()}
	noStepSummary := false
	cmd := &cobra.Command{
		Use:         "apply (-f FILE | --plan PLAN)",
		Annotations: map[string]string{cmdutil.OwnSignals: "stops starting work"},
		Short:       "Make the platform hold the WBS elements of a file",
		Long: `Make the platform hold the WBS elements of a file (CSV, JSON, NDJSON,
YAML or an .xlsx workbook, by extension or --format). The whole file is checked first: with any
problem nothing is sent and wbsctl exits with 5, unless --skip-invalid.
Then the current state is read and a plan made (create, update,
unchanged, and with --prune delete); --dry-run prints it and stops.

A field the file leaves out is left as it is; a field it states is made
so. CSV columns: ` + strings.Join(wbsfile.Columns(), ", ") + `
(TYPE=CODE;TYPE=CODE, '\' escapes ';' '=' '\'; or one row per
organization with the other cells repeated).

Requests run --concurrency at a time, paced by --rate and by the
platform's RateLimit headers. On a terminal a progress bar shows counts,
rate and time left; elsewhere a line every --progress-interval does. A
failed record does not stop the others; wbsctl exits with 6 when some
failed. SIGINT or SIGTERM stops starting
new work, lets requests in flight finish and writes the report; running
the same command again finishes the job (exit 130 for SIGINT, 143 for
SIGTERM, or as if no signal had come when every change was made).

A saved plan (--dry-run --out) is checked before it runs: a record that
does not give its after, an action that does not fit its before and
after, a step given twice, or a delete in a plan made without --prune is
refused with exit 2 and nothing sent. --plan P --dry-run prints it.

In CI: -o markdown prints the plan, or the results, as a GitHub-flavoured
Markdown table for a pull-request comment; on GitHub Actions the same is
appended to the job summary ($GITHUB_STEP_SUMMARY; --no-step-summary
turns it off) and each problem of the file is shown on its own line of
the file (GITHUB_ACTIONS=true).
Plans and states are written 0600 beside their target and renamed into
place; the folder is left as it is.`,
		Example: `  wbsctl apply -f wbs-elements.csv
  wbsctl apply -f export.json --dry-run --detailed-exitcode
  erp-export | wbsctl apply -f - --format ndjson --report results.ndjson --prune --max-deletes 50 --yes
  wbsctl apply -f wbs-elements.csv --check                    # the file alone, no credential
  wbsctl apply -f nightly.csv --dry-run --out nightly.plan    # review it, then:
  wbsctl apply --plan nightly.plan
  wbsctl apply -f nightly.csv --state nightly.state         # re-applies at the cost of the list`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.started = time.Now()
			if !cmd.Flags().Changed("state") && !opts.Check {
				opts.State, opts.stateFromEnv = f.Getenv("WBSCTL_STATE"), true
			}
			if !cmd.Flags().Changed("map") && opts.Plan == "" {
				opts.Map = f.Getenv("WBSCTL_MAP")
			}
			if err := opts.check(); err != nil {
				return err
			}
			if !noStepSummary && f.Getenv("WBSCTL_NO_STEP_SUMMARY") != "1" {
				opts.StepSummary = f.Getenv("GITHUB_STEP_SUMMARY")
			}
			opts.Annotate = f.Getenv("GITHUB_ACTIONS") == "true"
			opts.CI = ciService(f.Getenv)
			opts.Commit = cmdutil.CommitOf(f.Getenv)
			opts.JobURL = cmdutil.JobURL(f.Getenv)
			run := cmdutil.Pick(runF, runApply)
			stop, ctx, release := cmdutil.SignalContexts(cmd.Context())
			defer release()
			opts.Stop = stop
			return run(ctx, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.File, "file", "f", "", "file to apply, - for stdin")
	fl.StringVar(&opts.Format, "format", "", "csv, json, ndjson, yaml or xlsx (default: by extension)")
	fl.StringVar(&opts.Map, "map", "", "read -f, an ERP export, through this column `MAP` (YAML; see wbsctl map init); only the entity types it names are made exact (env WBSCTL_MAP)")
	fl.StringVar(&opts.Sheet, "sheet", "", "the sheet of an .xlsx workbook to read, a hidden one too (default: the first visible)")
	fl.StringVar(&opts.Delimiter, "delimiter", "", "what separates the cells of CSV: ',', ';' or tab (default: found from the header)")
	fl.StringVar(&opts.Encoding, "encoding", "", "the encoding of a text file: windows-1252, iso-8859-1 or utf-8 (default: UTF-8, or UTF-16 by its byte-order mark)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the plan and change nothing")
	fl.BoolVar(&opts.ShowUnchanged, "show-unchanged", false, "with --dry-run, list the unchanged elements too, not only count them")
	fl.BoolVar(&opts.DetailedExitcode, "detailed-exitcode", false, "with --dry-run, exit 7 when there are changes, 0 when none")
	fl.BoolVar(&opts.Prune, "prune", false, "delete the elements the file does not name (only when nothing else failed)")
	fl.BoolVar(&opts.Yes, "yes", false, "do not ask before pruning")
	fl.BoolVar(&opts.SkipInvalid, "skip-invalid", false, "leave invalid records out instead of stopping")
	fl.BoolVar(&opts.AllowInvisibleCodes, "allow-invisible-codes", false, "accept codes that hold a character that shows as nothing or a bidi control (U+200B, U+034F, U+202E...): the platform's codes may hold them")
	fl.BoolVar(&opts.Check, "check", false, "check the file only, with no credential and no request: its problems, and exit 5 when it has any")
	fl.IntVar(&opts.MaxDeletes, "max-deletes", -1, "refuse a plan that deletes more than `N` elements, with nothing sent (exit 2); required by --prune with -f -")
	fl.IntVar(&opts.Concurrency, "concurrency", 4, "requests in flight at most")
	fl.IntVar(&opts.PageSize, "page-size", 100, "items per page of the reads: the largest the platform answers costs the fewest requests")
	fl.StringVar(&opts.Out, "out", "", "with --dry-run: save the plan to this `FILE`, for --plan")
	fl.StringVar(&opts.Plan, "plan", "", "carry out the saved plan of this `FILE` exactly, after checking the platform still holds what it found")
	fl.StringVar(&opts.State, "state", "", "keep what the platform holds in this `FILE` or s3://BUCKET/KEY (also WBSCTL_STATE), and read an element's links only where the file's differ from it")
	fl.BoolVar(&opts.Refresh, "refresh", false, "with --state: read every element's links, and rebuild the state")
	fl.DurationVar(&opts.MaxDuration, "max-duration", 0, "with --dry-run and --state: stop reading links after this long, keep what was read in the state, show the plan as partial and exit 11; the next plan goes on from there (default: no limit)")
	fl.BoolVar(&opts.AllowOlderCommit, "allow-older-commit", false, "with --state: run a file (or saved plan) of a commit older than the one the state's last apply carried out, putting its values back on purpose")
	fl.StringVar(&opts.VerifyBudget, "verify-budget", "", "with --state: how many trusted elements a plan reads the links of again, those verified longest ago first, as a count or a share (`N|P%`; 0 trusts the state; default 5%, at most 1000)")
	fl.DurationVar(&opts.LockTimeout, "lock-timeout", 0, "with --state: wait up to this long for another run's lock of the state (default: fail at once, naming its holder)")
	fl.DurationVar(&opts.BreakStaleAfter, "break-stale-after", 0, "with an s3:// --state: take a lock the bucket has not seen renewed for this long, by the bucket's clock (a run renews it every 20s; at least 1m30s; default: never)")
	fl.IntVar(&opts.MaxPages, "max-pages", cmdutil.DefaultMaxPages, "stop reading a list after this many pages, as a guard against a list that never ends")
	fl.StringVar(&opts.Rate, "rate", "240/min", "requests per unit at most (such as 240/min, 4/s; 0 for none)")
	fl.StringVar(&opts.Report, "report", "", "write one NDJSON line per record and a summary to this file")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "print no progress")
	fl.DurationVar(&opts.ProgressInterval, "progress-interval", 3*time.Second, "where stderr is no terminal (a CI log), the time between two progress lines")
	fl.StringVar(&opts.CodeQuality, "codequality", "", "write the file's problems to this `FILE` as a GitLab Code Quality report (an empty list when there are none)")
	fl.BoolVar(&noStepSummary, "no-step-summary", false, "do not append the plan or results to $GITHUB_STEP_SUMMARY (also WBSCTL_NO_STEP_SUMMARY=1)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"csv", "json", "ndjson", "yaml", "xlsx"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("encoding", cobra.FixedCompletions([]string{"windows-1252", "iso-8859-1", "utf-8"}, cobra.ShellCompDirectiveNoFileComp))
	return f.AddOutputFlags(cmd, slices.Concat(cmdutil.RowFormats, []output.Format{markdownFormat})...)
}

// largeFile is the number of records from which apply's memory counts
// for more than the collector's time.
const largeFile = 100_000

// collectorSetByUser reports whether GOGC or GOMEMLIMIT sets the
// collector, which apply then leaves as it is.
func collectorSetByUser() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }

// tuneCollector lets the heap grow by half its live size between
// collections, not by all of it, for a file of records records of at
// least largeFile. Apply holds its records and plan from start to end, so
// the default lets a large file's peak reach twice what it holds; the
// collector's extra work is a few percent of a run that the platform's
// rate makes last minutes (scripts/bench's peak-memory rows measure the
// peak it keeps down).
func tuneCollector(records int) {
	if records >= largeFile && !collectorSetByUser() {
		debug.SetGCPercent(50)
	}
}

// smallHeldHeap is the most a run may hold for roomForWrites to give its
// heap more room.
const smallHeldHeap = 16 << 20

// roomForWrites lets the heap grow by four times what it holds while the
// plan's changes are made, where that is little: each request leaves a few
// kilobytes of garbage (resty's and net/http's request and headers), and
// the default would collect a small heap every few hundred requests, a
// fifth of the client's processor in a load of 20,000 at --rate 0. It is
// decided once the plan is known, by what the run holds then (the
// records, the plan, a state's elements and those --prune deletes), not by
// the file's size: a small file against a large state holds much.
func roomForWrites() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return
	}
	if p := writesPercent(s[0].Value.Uint64(), s[1].Value.Uint64()); p != int(s[1].Value.Uint64()) {
		debug.SetGCPercent(p)
	}
}

// writesPercent is the collector's percent for the writes of a run that
// holds held bytes, its percent being percent: 400 for a small heap at the
// default, else as it is (set by the user, or by tuneCollector for a
// large file).
func writesPercent(held, percent uint64) int {
	if collectorSetByUser() || percent != 100 || held >= smallHeldHeap {
		return int(percent)
	}
	return 400
}

// runApply carries out `wbsctl apply`: it reads the input, makes the
// client, runs the engine with the progress's hooks and prune's
// confirmation, and finishes with what the run did.
func runApply(ctx context.Context, o *Options) error {
	start := time.Now() // the whole run: the plan's reads count too
	perMinute, err := ratelimit.ParsePerMinute(o.Rate)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	in, err := o.readInput()
	if err != nil || o.Check {
		return err
	}
	// A bulk load retries a 500 of a safe request too: a few more attempts
	// cost less than a failed record.
	c, err := o.Client(sdk.WithLimiter(ratelimit.New(perMinute)), sdk.WithServerErrorRetries())
	var noCredentials *cmdutil.AuthError
	switch {
	case o.Plan != "" && o.DryRun && errors.As(err, &noCredentials):
		// Showing a saved plan sends nothing: a reviewer without
		// credentials sees it too.
		return printSavedPlan(o, nil)
	case err != nil:
		return err
	case o.Plan != "" && o.DryRun:
		return printSavedPlan(o, c)
	}
	run, err := o.engineInput(ctx, c, in)
	if err != nil {
		return err
	}
	if run.State != nil {
		defer run.State.Close()
	}
	prog := newProgress(o)
	defer prog.stop()
	planning, stopPlanning := startPlanning(o)
	defer stopPlanning()
	run.Plan.LinksRead = planning.linksRead
	ran, err := engine.Run(ctx, c, run, o.hooks(prog, stopPlanning))
	stopPlanning()
	prog.stop()
	for _, w := range prog.warnings {
		fmt.Fprintf(o.IO.ErrOut, "error: %v\n", w)
	}
	if err := o.showRefusedPlan(ran, err, c, in.source); err != nil {
		return err
	}
	lockLost, err := o.runError(ran, err)
	if err != nil {
		return err
	}
	if o.DryRun {
		return o.finishDryRun(ran.Plan, c, in.source)
	}
	return o.finish(ctx, ran, start, lockLost)
}

// input is what -f gave: its records, what they were read from (for a
// saved plan), and the entity types a column map owns (nil: every type,
// as without --map).
type input struct {
	file   *wbsfile.File
	source engine.Source
	owned  []string
}

// readInput reads and checks the file of -f, unless a saved plan stands
// in its place; with --check it reports the file and ends there.
func (o *Options) readInput() (input, error) {
	if o.Plan != "" {
		return input{file: &wbsfile.File{}}, nil
	}
	in, err := readFile(o)
	if problems := (*problemsError)(nil); errors.As(err, &problems) {
		reportProblems(o, problems)
	}
	if err != nil {
		return input{}, err
	}
	tuneCollector(len(in.file.Records))
	if o.Check {
		return in, reportChecked(o, in.file)
	}
	if path, local, _ := statestore.LocalPath(o.State); o.State != "" && local {
		if err := checkStateUntracked(path); err != nil {
			return input{}, &cmdutil.UsageError{Err: err}
		}
	}
	return in, nil
}

// engineInput is what engine.Run takes: the file, the options, the state
// opened (the caller closes it) and the saved plan read.
func (o *Options) engineInput(ctx context.Context, c *sdk.Client, from input) (engine.Input, error) {
	in := engine.Input{
		File: from.file, Refresh: o.Refresh, DryRun: o.DryRun, VerifyBudget: o.verifyBudget,
		Commit: o.Commit, AllowOlderCommit: o.AllowOlderCommit,
		Plan:            engine.PlanOptions{Concurrency: o.Concurrency, PageSize: o.PageSize, MaxPages: o.MaxPages, Deadline: o.deadline()},
		Prune:           o.prune(),
		Stop:            o.Stop,
		Holder:          statestore.NewHolder(o.operation(), o.JobURL, time.Now()),
		LockTimeout:     o.LockTimeout,
		BreakStaleAfter: o.BreakStaleAfter,
		StateArg:        cmdutil.StateArg(o.State, o.stateFromEnv),
		// A report names every outcome's correlation id.
		KeepCorrelationIDs: o.Report != "",
	}
	in.Prune.OwnedTypes = from.owned
	if o.Plan != "" {
		var err error
		if in.Saved, err = readSavedPlan(o, c); err != nil {
			return in, err
		}
	}
	if o.State != "" {
		var err error
		if in.State, err = statestore.Open(ctx, o.State); err != nil {
			return in, &cmdutil.UsageError{Err: fmt.Errorf("%w; nothing was sent", err)}
		}
	}
	return in, nil
}

// deadline is when a dry run with --max-duration stops reading links:
// that long after the command started; zero without it.
func (o *Options) deadline() time.Time {
	if o.MaxDuration == 0 {
		return time.Time{}
	}
	return o.started.Add(o.MaxDuration)
}

// prune is what the run may delete, as the flags say; the engine's
// engine.Prune decides the rest.
func (o *Options) prune() engine.Prune {
	p := engine.Prune{Requested: o.Prune, Stream: o.File == "-"}
	if o.MaxDeletes >= 0 {
		p.MaxDeletes = &o.MaxDeletes
	}
	return p
}

// hooks are the engine's calls back: the answer to prune's confirmation
// (--yes, or the prompt), the progress once the plan is known (the
// planning's lines ended by stopPlanning) and per result, the lock wait and the warnings, kept for after the progress.
func (o *Options) hooks(prog *progress, stopPlanning func()) engine.Hooks {
	return engine.Hooks{
		ConfirmPrune: func(deletes int) (bool, error) {
			if o.Yes {
				return true, nil
			}
			return confirm(o, deletes)
		},
		Planned: func(plan *engine.Plan) {
			stopPlanning()
			roomForWrites()
			prog.start(plan)
		},
		OnResult: prog.add,
		Waiting: func(holder string) {
			fmt.Fprintf(o.IO.ErrOut, "waiting up to %s for the state's lock, held by %s\n", o.LockTimeout, output.Escape(holder))
		},
		Warn: func(err error) { prog.warnings = append(prog.warnings, err) },
	}
}

// showRefusedPlan shows the plan of a dry run that err refuses all the
// same: one past --max-deletes shown and saved whole, for the reviewer to
// see what would be deleted; a partial one shown, never saved, as it
// cannot be carried out.
func (o *Options) showRefusedPlan(ran *engine.Outcome, err error, c *sdk.Client, src engine.Source) error {
	switch {
	case !o.DryRun || ran == nil:
		return nil
	case errors.Is(err, engine.ErrPartialPlan):
		return printPlan(o, ran.Plan, o.ShowUnchanged)
	case errors.Is(err, engine.ErrTooManyDeletes):
		// Its exit is the refusal's, not --detailed-exitcode's.
		if err := o.finishDryRun(ran.Plan, c, src); !errors.Is(err, errPending) {
			return err
		}
	}
	return nil
}

// runError is the command's error for what engine.Run returned; a lost
// lock after changes were made is held back (lockLost) to be reported
// after them.
func (o *Options) runError(ran *engine.Outcome, err error) (lockLost, _ error) {
	switch {
	case errors.Is(err, engine.ErrTooManyDeletes):
		return nil, &cmdutil.UsageError{Err: err}
	case errors.Is(err, engine.ErrPartialPlan):
		report(o, "wbsctl apply: the plan is partial (exit 11)", output.Escape(err.Error()),
			"No saved plan was written. Plan again (the next pipeline, or a new run): each plan goes on from the state the last one filled, until one reads everything within its time.")
		return nil, &cmdutil.PartialPlanError{Err: err}
	case errors.Is(err, engine.ErrOlderCommit):
		report(o, "wbsctl apply: the file is of an older commit (exit 10)", output.Escape(err.Error()), "Nothing was sent. Plan the newest commit instead: "+o.planAgain())
		return nil, errors.Join(&cmdutil.OlderCommitError{Err: err}, o.writeRefusedReport(err))
	case errors.Is(err, engine.ErrPlanStale):
		reportStale(o, err)
		return nil, errors.Join(&cmdutil.PlanStaleError{Err: err}, o.writeRefusedReport(err))
	case errors.Is(err, sdk.ErrListTooLong):
		return nil, fmt.Errorf("%w (raise --max-pages, now %d, if the list really is this long); nothing was sent", err, o.MaxPages)
	case errors.Is(err, engine.ErrLockLost) && ran != nil && ran.Results != nil:
		// What was made is reported as any run's, then the loss.
		return err, nil
	}
	return nil, err
}

// finishDryRun prints the plan, saves it with --out, and says with
// --detailed-exitcode whether it changes anything.
func (o *Options) finishDryRun(plan *engine.Plan, c *sdk.Client, src engine.Source) error {
	if err := printPlan(o, plan, o.ShowUnchanged); err != nil {
		return err
	}
	if o.Out != "" {
		if err := plan.WriteSaved(o.Out, c.BaseURL(), c.ClientID(), src, time.Now()); err != nil {
			return fmt.Errorf("writing the plan: %w", err)
		}
		fmt.Fprintf(o.IO.ErrOut, "plan saved to %s: wbsctl apply --plan %s carries it out\n", o.Out, o.Out)
	}
	if o.DetailedExitcode && plan.Pending() {
		return errPending
	}
	return nil
}

// finish says what a run did: the failures, the report, the summary
// line, the Markdown and the job summary; then its exit.
func (o *Options) finish(ctx context.Context, ran *engine.Outcome, start time.Time, lockLost error) error {
	results := ran.Results
	sum := o.summarize(ctx, ran)
	for _, r := range results.All() {
		if r.Status == engine.StatusFailed {
			fmt.Fprintf(o.IO.ErrOut, "line %d (code %s): %s failed: %s\n", r.Line, output.Quote(r.Code), r.Action, output.Escape(r.Detail))
		}
	}
	if o.Report != "" {
		if err := writeReport(o.Report, results, sum); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "%s in %s\n", summaryLine(sum), time.Since(start).Round(time.Millisecond))
	if mode := o.Mode(); mode.Format == markdownFormat && !mode.Filter {
		if err := writeResultsMarkdown(cmdutil.DataOut(o.IO), results, sum); err != nil {
			return err
		}
	}
	if err := appendStepSummary(o, func(w io.Writer) error { return writeResultsMarkdown(w, results, sum) }); err != nil {
		return err
	}
	switch {
	case lockLost != nil:
		report(o, "wbsctl apply: the state's lock was lost (exit 1)", lockLost.Error(),
			"The changes above were made; the others were not started. Find the run that took the lock (wbsctl state show), let it end, then "+o.planAgain())
		return lockLost
	case sum.Interrupted:
		return fmt.Errorf("%w: run the same command again to finish", o.interrupted())
	case sum.Failed > 0:
		reportFailed(o, sum.Failed, results.Len())
		return &cmdutil.PartialError{Failed: sum.Failed, Total: results.Len()}
	case sum.Invalid > 0:
		reportInvalid(o, sum.Invalid, results.Len())
		return &cmdutil.PartialError{Failed: sum.Invalid, Total: results.Len(), What: "left out as invalid"}
	}
	return nil
}

// writeRefusedReport writes the report of a run that err refused before
// any write (a stale plan, exit 8; an older commit, exit 10): the
// elements that moved, and why nothing was sent.
// Every outcome writes its report, so that a pipeline's artifact is there
// to read.
func (o *Options) writeRefusedReport(err error) error {
	if o.Report == "" {
		return nil
	}
	results := engine.RefusedResults(err)
	sum := engine.Summarize(results, o.requestCounts())
	sum.Refused = err.Error()
	if err := writeReport(o.Report, results, sum); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// requestCounts are the requests the run's client has counted.
func (o *Options) requestCounts() engine.RequestCounts {
	n := o.Requests()
	return engine.RequestCounts{Sent: n.Sent, Throttled: n.Throttled, Reads: n.Reads, Writes: n.Writes, Tokens: n.Tokens}
}

// summarize counts a run's results and requests, and whether a signal
// left work undone.
func (o *Options) summarize(ctx context.Context, ran *engine.Outcome) engine.Summary {
	sum := engine.Summarize(ran.Results, o.requestCounts())
	// Work is left when a change did not start (a prune held back for
	// confirmation is not left work) or the second signal cut requests
	// short; an interruption after the last change leaves none.
	left := ctx.Err() != nil
	for _, r := range ran.Results.All() {
		left = left || (r.Status == engine.StatusSkipped && !ran.HeldBack(r))
	}
	if o.stopped() {
		sum.Interrupted = left
		if !left {
			fmt.Fprintf(o.IO.ErrOut, "%s came after the last change: nothing is left to do\n", o.interrupted())
		}
	}
	return sum
}

// minStale is the least --break-stale-after (statestore.MinBreakStale
// says why).
const minStale = statestore.MinBreakStale

// isLocalState reports whether --state is a local file.
func isLocalState(state string) bool {
	_, local, _ := statestore.LocalPath(state)
	return local
}

// operation is the run as the state's lock names it for others.
func (o *Options) operation() string {
	op := "apply -f " + o.File
	if o.Plan != "" {
		op = "apply --plan " + o.Plan
	}
	if o.DryRun {
		op += " --dry-run"
	}
	return op
}

// check refuses combinations of flags that cannot work.
func (o *Options) check() error {
	usage := func(msg string) error { return &cmdutil.UsageError{Err: errors.New(msg)} }
	if o.VerifyBudget != "" {
		var err error
		if o.verifyBudget, err = engine.ParseVerifyBudget(o.VerifyBudget); err != nil {
			return &cmdutil.UsageError{Err: err}
		}
	}
	switch {
	case o.File == "" && o.Plan == "":
		return usage("-f FILE, or --plan PLAN, is required")
	case o.File != "" && o.Plan != "":
		return usage("-f and --plan cannot be used together: a saved plan carries its steps")
	case o.Plan != "" && (o.Prune || o.SkipInvalid || o.Out != ""):
		return usage("--plan carries out a saved plan as it is: --prune, --skip-invalid and --out belong to making it")
	case o.Plan != "" && o.CodeQuality != "":
		return usage("--plan reads no file: --codequality reports the problems of -f")
	case o.Plan != "" && (o.Format != "" || o.Sheet != "" || o.Delimiter != "" || o.Encoding != "" || o.Map != ""):
		return usage("--plan carries out a saved plan as it is: --format, --sheet, --delimiter, --encoding and --map read the file it was made from")
	case o.Out != "" && !o.DryRun:
		return usage("--out saves the plan of a --dry-run: give both")
	case o.DetailedExitcode && !o.DryRun:
		return usage("--detailed-exitcode needs --dry-run: it reports whether a plan has changes")
	case o.Concurrency < 1:
		return usage("--concurrency must be at least 1")
	case o.PageSize < 1:
		return usage("--page-size must be at least 1")
	case o.ProgressInterval <= 0:
		return usage("--progress-interval must be more than 0 (--quiet prints no progress)")
	case o.MaxPages < 1:
		return usage("--max-pages must be at least 1")
	case o.Check && (o.File == "" || o.DryRun || o.Out != "" || o.State != "" || o.Prune || o.Report != ""):
		return usage("--check reads -f alone and sends nothing: --dry-run, --out, --state, --prune and --report belong to a run against the platform")
	case o.MaxDeletes < -1:
		return usage("--max-deletes must be 0 or more")
	}
	if err := o.checkStateFlags(); err != nil {
		return err
	}
	if err := o.prune().Check(); err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	return o.checkPaths()
}

// checkStateFlags refuses the flags that steer --state where they cannot
// work.
func (o *Options) checkStateFlags() error {
	usage := func(msg string) error { return &cmdutil.UsageError{Err: errors.New(msg)} }
	switch {
	case o.Refresh && o.State == "":
		return usage("--refresh rebuilds the state of --state: give both")
	case o.MaxDuration < 0:
		return usage("--max-duration must be 0 (no limit) or more")
	case o.MaxDuration > 0 && (!o.DryRun || o.State == "" || o.Plan != ""):
		return usage("--max-duration bounds a plan of -f that keeps what it read: give it with --dry-run and --state")
	case o.AllowOlderCommit && o.State == "":
		return usage("--allow-older-commit goes past the commit --state records: give both")
	case o.VerifyBudget != "" && o.State == "":
		return usage("--verify-budget reads again the links --state trusts: give both")
	case o.VerifyBudget != "" && o.Refresh:
		return usage("--refresh reads every link: --verify-budget has nothing to choose")
	case o.LockTimeout != 0 && o.State == "":
		return usage("--lock-timeout waits for the lock of --state: give both")
	case o.LockTimeout < 0 || o.BreakStaleAfter < 0:
		return usage("--lock-timeout and --break-stale-after must be 0 or more")
	case o.BreakStaleAfter != 0 && o.State == "":
		return usage("--break-stale-after breaks the lock of --state: give both")
	case o.BreakStaleAfter != 0 && o.BreakStaleAfter < minStale:
		return usage(fmt.Sprintf("--break-stale-after must be at least %s: a run whose lock was not renewed for %s sends nothing more, and a request it sent before may take %s more", minStale, statestore.LeaseTerm, statestore.RequestBound))
	case o.BreakStaleAfter != 0 && isLocalState(o.State):
		return usage("--break-stale-after breaks the lock of a shared (s3://) state: a local state's lock ends with its process")
	}
	return nil
}

// checkPaths refuses a file to write (--out, --state, --report,
// --codequality) that is
// a file read (-f, --plan), or another file to write, by the same name
// or another: writing it would destroy what the run reads or writes.
func (o *Options) checkPaths() error {
	type named struct{ flag, path string }
	var read, written []named
	if o.File != "" && o.File != "-" {
		read = append(read, named{"-f", o.File})
	}
	if o.Plan != "" {
		read = append(read, named{"--plan", o.Plan})
	}
	statePath, _, _ := statestore.LocalPath(o.State)
	for _, w := range []named{{"--out", o.Out}, {"--state", statePath}, {"--report", o.Report}, {"--codequality", o.CodeQuality}} {
		if w.path == "" {
			continue
		}
		for _, other := range append(read, written...) {
			if sameFile(w.path, other.path) {
				return &cmdutil.UsageError{Err: fmt.Errorf("%s %s is the file of %s: give another file (nothing was sent)", w.flag, w.path, other.flag)}
			}
		}
		written = append(written, w)
	}
	return nil
}

// sameFile reports whether a and b name one file: the same path once
// cleaned, or, for files that exist, the same file by another name (a
// link, a relative path).
func sameFile(a, b string) bool {
	if absA, err := filepath.Abs(a); err == nil {
		if absB, err := filepath.Abs(b); err == nil && absA == absB {
			return true
		}
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// readFile reads and checks the file of -f.
func readFile(o *Options) (input, error) {
	format, err := wbsfile.DetectFormat(o.File, o.Format)
	if err != nil {
		return input{}, &cmdutil.UsageError{Err: err}
	}
	var data []byte
	if err := o.unlessStopped("-f "+o.File, func() (err error) {
		data, err = cmdutil.ReadFileOrStdin(o.IO.In, o.File, wbsfile.MaxFileBytes)
		return err
	}); err != nil {
		if errors.Is(err, cmdutil.ErrInterrupted) {
			return input{}, err
		}
		return input{}, &cmdutil.UsageError{Err: err}
	}
	read := wbsfile.ReadOptions{Sheet: o.Sheet, Encoding: o.Encoding}
	if o.Delimiter != "" {
		if read.Delimiter, err = wbsfile.ParseDelimiter(o.Delimiter); err != nil {
			return input{}, &cmdutil.UsageError{Err: err}
		}
	}
	if err := read.Check(format); err != nil {
		return input{}, &cmdutil.UsageError{Err: err}
	}
	in, err := o.parse(data, format, read)
	if err != nil {
		return input{}, err
	}
	in.source.File, in.source.FileDigest = o.File, engine.FileDigest(data)
	parsed := in.file
	if o.CodeQuality != "" {
		if err := writeCodeQuality(o.CodeQuality, o.File, parsed.Problems); err != nil {
			return input{}, fmt.Errorf("--codequality: %w", err)
		}
	}
	for _, n := range parsed.Notes {
		fmt.Fprintln(o.IO.ErrOut, "note: "+output.Escape(n))
	}
	for _, p := range parsed.Problems {
		fmt.Fprintln(o.IO.ErrOut, output.Escape(p.String()))
		if o.Annotate {
			fmt.Fprintln(o.IO.ErrOut, workflowCommand(o.File, p))
		}
	}
	if len(parsed.Problems) > 0 && !o.SkipInvalid {
		return input{}, &problemsError{file: o.File, problems: parsed.Problems}
	}
	if err := o.prune().CheckFile(parsed); errors.Is(err, engine.ErrPruneEverything) {
		return input{}, &cmdutil.UsageError{Err: err}
	} else if err != nil {
		return input{}, fmt.Errorf("%s: %w", o.File, err)
	}
	return in, nil
}

// parse reads the file's bytes as wbsctl's own file, or through the ERP
// column map of --map, whose counts it says on stderr.
func (o *Options) parse(data []byte, format wbsfile.Format, read wbsfile.ReadOptions) (input, error) {
	checks := wbsfile.Checks{AllowInvisibleCodes: o.AllowInvisibleCodes}
	if o.Map == "" {
		parsed, err := wbsfile.ParseBytesChecked(data, format, read, checks)
		return input{file: parsed}, err
	}
	source, err := os.ReadFile(o.Map)
	if err != nil {
		return input{}, &cmdutil.UsageError{Err: fmt.Errorf("--map: %w", err)}
	}
	m, err := erpmap.Parse(o.Map, source)
	if err != nil {
		return input{}, err
	}
	t, err := erpmap.ReadTable(data, format, read)
	if err != nil {
		return input{}, err
	}
	defer t.Close()
	res, err := m.Read(t, checks)
	if err != nil {
		return input{}, err
	}
	owned := m.OwnedTypes()
	if owned == nil {
		owned = []string{} // the map states no link: none is changed
	}
	fmt.Fprintf(o.IO.ErrOut, "%s through %s: %s\n", output.Escape(o.File), output.Escape(o.Map), res.Counts)
	return input{file: res.File, owned: owned, source: engine.Source{Map: o.Map, MapDigest: m.Digest()}}, nil
}

// printSavedPlan prints the saved plan of --plan as the diff of a dry
// run, without a request: what a reviewer reads is what --plan would
// carry out, if the platform still holds what the plan found.
func printSavedPlan(o *Options, c *sdk.Client) error {
	saved, err := readSavedPlan(o, c)
	if err != nil {
		return err
	}
	plan := saved.Plan()
	if err := printPlan(o, plan, false); err != nil {
		return err
	}
	if o.DetailedExitcode && plan.Pending() {
		return errPending
	}
	return nil
}

// readSavedPlan reads the saved plan of --plan, for the platform of c,
// or for any when c is nil (to show it without credentials). One that is
// damaged, edited, another platform's or not there is a usage error,
// found before anything was sent. A plan is held as a file's records are
// (see tuneCollector).
func readSavedPlan(o *Options, c *sdk.Client) (*engine.SavedPlan, error) {
	var saved *engine.SavedPlan
	err := o.unlessStopped("--plan "+o.Plan, func() (err error) {
		if c != nil {
			saved, err = engine.ReadSavedPlan(o.Plan, c.BaseURL(), c.ClientID())
		} else {
			saved, err = engine.ReadSavedPlanFile(o.Plan)
		}
		return err
	})
	if errors.Is(err, cmdutil.ErrInterrupted) {
		return nil, err
	}
	if err == nil && c == nil {
		fmt.Fprintf(o.IO.ErrOut, "note: with no credentials, the plan is shown as saved, for %s as %s\n", output.Escape(saved.BaseURL), output.Escape(saved.ClientID))
	}
	if err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("%w; nothing was sent", err)}
	}
	err = o.unlessStopped("the plan's -f and --map", func() error { return checkSource(saved.Source) })
	if errors.Is(err, cmdutil.ErrInterrupted) {
		return nil, err
	}
	if err != nil {
		if !o.DryRun {
			err = fmt.Errorf("--plan %s: %w; nothing was sent", output.Escape(o.Plan), err)
			if errors.Is(err, engine.ErrSourceChanged) {
				err = fmt.Errorf("%w: make the plan again", err)
				reportStale(o, err)
				return nil, errors.Join(&cmdutil.PlanStaleError{Err: err}, o.writeRefusedReport(err))
			}
			return nil, &cmdutil.UsageError{Err: err}
		}
		fmt.Fprintf(o.IO.ErrOut, "note: %v: carrying the plan out is refused\n", err)
	}
	tuneCollector(len(saved.Steps))
	return saved, nil
}

// checkSource holds a saved plan to the file and the column map it was
// made from, where they are there to read: one changed since is an error
// naming it. A job that carries out a plan without them (the plan is an
// artifact, the repository not checked out) carries out what was
// reviewed, which is the plan's steps.
func checkSource(src engine.Source) error {
	for _, f := range []struct{ flag, path, digest string }{{"-f", src.File, src.FileDigest}, {"--map", src.Map, src.MapDigest}} {
		if f.path == "" || f.path == "-" || f.digest == "" {
			continue
		}
		now, err := fileDigest(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("the plan's %s %s: %w", f.flag, output.Escape(f.path), err)
		}
		if now != f.digest {
			return fmt.Errorf("the plan's %s %s: %w (%s, now %s)", f.flag, output.Escape(f.path), engine.ErrSourceChanged, f.digest, now)
		}
	}
	return nil
}

// fileDigest is engine.FileDigest of the file at path, which is read a
// piece at a time.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return engine.ReadDigest(f)
}

// unlessStopped runs read, and returns when it does or when Stop ends.
// Opening or reading a file can wait for ever (a FIFO with no writer, a
// terminal, a hung network share) where no signal reaches it: the first
// SIGINT or SIGTERM ends the wait, with nothing sent, and the read is
// left to the process's end. read must only read: what it sets is not
// looked at once the wait is given up, and it writes nothing else.
func (o *Options) unlessStopped(what string, read func() error) error {
	if o.Stop == nil {
		return read()
	}
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		return err
	case <-o.Stop.Done():
		return fmt.Errorf("%w while reading %s: nothing was sent", o.interrupted(), output.Escape(what))
	}
}

// errPending is the answer of a dry run with --detailed-exitcode that
// found changes.
var errPending = &cmdutil.PendingError{}

func printPlan(o *Options, plan *engine.Plan, showUnchanged bool) error {
	mode := o.Mode()
	if err := appendStepSummary(o, func(w io.Writer) error { return writePlanMarkdown(w, plan, showUnchanged) }); err != nil {
		return err
	}
	switch {
	case mode.Format == markdownFormat && !mode.Filter:
		if err := writePlanMarkdown(cmdutil.DataOut(o.IO), plan, showUnchanged); err != nil {
			return err
		}
	case mode.Rows():
		// A row a change: the document is one value, which a table
		// cannot show.
		columns, rows, items := planRows(plan, showUnchanged)
		p, err := o.Printer(columns...)
		if err != nil {
			return err
		}
		for i, row := range rows {
			if err := p.Add(items[i], row...); err != nil {
				return err
			}
		}
		if err := p.Flush(); err != nil {
			return err
		}
	case mode.Structured():
		// Written a change at a time, not held whole.
		p, err := o.Printer()
		if err != nil {
			return err
		}
		if err := p.Document(plan.DocumentHead(), "changes", output.Each(plan.Shown(showUnchanged))); err != nil {
			return err
		}
	default:
		if err := writePlan(o.IO.Out, plan, planView{Color: o.IO.ColorEnabled(), ShowUnchanged: showUnchanged}); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "plan: %d to create, %d to update, %d unchanged, %d to delete\n",
		plan.Counts()[engine.ActionCreate], plan.Counts()[engine.ActionUpdate], plan.Counts()[engine.ActionUnchanged], plan.Counts()[engine.ActionDelete])
	if n := len(plan.Unmanaged); n > 0 {
		fmt.Fprintf(o.IO.ErrOut, "%s: %s\n", unmanagedLine(n), output.Escape(firstCodes(plan.Unmanaged, 5)))
	}
	if plan.Unread > 0 {
		fmt.Fprintln(o.IO.ErrOut, partialLine(plan.Unread))
	}
	n := o.Requests()
	fmt.Fprintf(o.IO.ErrOut, "plan: %s (%d reads, %s)\n", output.Count(int(n.Sent), "request"), n.Reads, output.Count(int(n.Tokens), "token exchange"))
	if v := plan.Verification; v != nil {
		fmt.Fprintln(o.IO.ErrOut, v.String(time.Now()))
	}
	return nil
}

// firstCodes lists the first n codes and counts the rest.
func firstCodes(codes []string, n int) string {
	if len(codes) <= n {
		return strings.Join(codes, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(codes[:n], ", "), len(codes)-n)
}

func confirm(o *Options, n int) (bool, error) {
	if !o.IO.CanPrompt() {
		return false, &cmdutil.UsageError{Err: fmt.Errorf("--prune would delete %s: confirm with --yes (no terminal to ask on)", output.Count(n, "element"))}
	}
	fmt.Fprintf(o.IO.ErrOut, "Delete %s the file does not name? [y/N] ", output.Count(n, "element"))
	line, _ := bufio.NewReader(o.IO.In).ReadString('\n')
	return strings.EqualFold(strings.TrimSpace(line), "y") || strings.EqualFold(strings.TrimSpace(line), "yes"), nil
}

func writeReport(path string, results *engine.Results, sum engine.Summary) error {
	file, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return err
	}
	defer file.Abort()
	w := bufio.NewWriter(file)
	if err := engine.WriteReport(w, results, sum); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return file.Commit()
}
