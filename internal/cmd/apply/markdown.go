package apply

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/output"
)

// markdownFormat is -o markdown: the plan, or the results of a run, as
// GitHub-flavoured Markdown, for a pull-request comment or a job summary.
const markdownFormat = output.Format("markdown")

// markdownLimit bounds the Markdown of a plan or of results, below the
// 65,536 characters of a pull-request comment or a job summary's 1 MiB:
// past it the rows stop and a line counts the rest.
const markdownLimit = 60_000

// markdownTable writes a GFM table of header and the rows next yields
// until it yields nil, stopping before the text passes markdownLimit;
// rest says what the rows left out were, given their number. Every cell
// is wbsctl's own text or the output of mdCode.
func markdownTable(w io.Writer, title string, header []string, next func() []string, rest func(n int) string) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "### %s\n\n", title)
	written := 0
	row := func(cells []string) string { return "| " + strings.Join(cells, " | ") + " |\n" }
	first := true
	left := 0
	for cells := next(); cells != nil; cells = next() {
		if first {
			written += len(row(header))
			b.WriteString(row(header))
			b.WriteString(strings.Repeat("|---", len(header)) + "|\n")
			first = false
		}
		line := row(cells)
		if left > 0 || written+len(line) > markdownLimit {
			left++
			continue
		}
		written += len(line)
		b.WriteString(line)
	}
	if left > 0 {
		fmt.Fprintf(b, "\n%s\n", rest(left))
	}
	return b.Flush()
}

// mdCode is text from a file or the platform as a GFM code span, which
// shows it as it is: no emphasis, link, image, HTML or mention comes of
// it. Controls and invisible characters are escaped as on a terminal, a
// pipe is escaped for the table, and the fence is longer than any run of
// backticks in the text.
func mdCode(s string) string {
	s = strings.ReplaceAll(output.Escape(s), "|", `\|`)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s == "" || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// actionMarks are the signs of a change in Markdown, which has no colour.
var actionMarks = map[engine.Action]string{engine.ActionCreate: "➕", engine.ActionUpdate: "✏️", engine.ActionDelete: "➖", engine.ActionUnchanged: "·"}

// writePlanMarkdown writes plan as a GFM table: a change a row, its
// fields as in the diff, each value a code span; unchanged elements are
// counted below unless shown.
func writePlanMarkdown(w io.Writer, plan *engine.Plan, showUnchanged bool) error {
	counts := plan.Counts()
	title := fmt.Sprintf("wbsctl plan: %d to create, %d to update, %d unchanged, %d to delete",
		counts[engine.ActionCreate], counts[engine.ActionUpdate], counts[engine.ActionUnchanged], counts[engine.ActionDelete])
	plain := func(_, s string) string { return s }
	i := 0
	next := func() []string {
		for ; i < len(plan.Changes); i++ {
			if plan.Changes[i].Action == engine.ActionUnchanged && !showUnchanged {
				continue
			}
			ch := plan.Changes[i].Step()
			i++
			var fields []string
			for _, f := range changeFields(ch, plain) {
				fields = append(fields, f[0]+" "+mdCode(f[1]))
			}
			line := ""
			if ch.Line > 0 {
				line = strconv.Itoa(int(ch.Line))
			}
			return []string{actionMarks[ch.Action] + " " + ch.Action.String(), mdCode(ch.Code), line, strings.Join(fields, "; ")}
		}
		return nil
	}
	err := markdownTable(w, title, []string{"Action", "Code", "Line", "Changes"}, next, func(n int) string {
		return fmt.Sprintf("_…and %d more changes, left out to keep this page short: `wbsctl apply --dry-run -o json` or a saved plan holds them all._", n)
	})
	if err != nil || !plan.Pending() {
		if err == nil && !plan.Pending() {
			_, err = fmt.Fprintln(w, "No changes: the platform holds what the file says.")
		}
		return err
	}
	if n := counts[engine.ActionUnchanged]; n > 0 && !showUnchanged {
		_, err = fmt.Fprintf(w, "\n%d unchanged, not listed.\n", n)
	}
	return err
}

// writeResultsMarkdown writes the outcome of a run as a GFM table of the
// changes that were made, failed or left out, with the platform's
// message, under the run's summary.
func writeResultsMarkdown(w io.Writer, results *engine.Results, sum engine.Summary) error {
	marks := map[engine.Status]string{engine.StatusOK: "✅", engine.StatusFailed: "❌", engine.StatusSkipped: "⏭️", engine.StatusInvalid: "⚠️"}
	i := 0
	next := func() []string {
		for ; i < results.Len(); i++ {
			r := results.At(i)
			if r.Action == engine.ActionUnchanged && r.Status == engine.StatusOK {
				continue
			}
			i++
			line, detail := "", ""
			if r.Line > 0 {
				line = strconv.Itoa(r.Line)
			}
			if r.Detail != "" {
				detail = mdCode(r.Detail)
			}
			return []string{marks[r.Status] + " " + string(r.Status), r.Action.String(), mdCode(r.Code), line, detail}
		}
		return nil
	}
	return markdownTable(w, "wbsctl apply: "+sum.String(), []string{"Result", "Action", "Code", "Line", "Detail"}, next, func(n int) string {
		return fmt.Sprintf("_…and %d more results, left out to keep this page short: `--report FILE` holds them all._", n)
	})
}

// appendStepSummary appends what write writes to o.StepSummary, the job
// summary of GitHub Actions, when one is named. A summary that cannot be
// written is said on stderr: the job's own work is not failed for it.
func appendStepSummary(o *Options, write func(io.Writer) error) error {
	if o.StepSummary == "" {
		return nil
	}
	f, err := os.OpenFile(o.StepSummary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(o.IO.ErrOut, "warning: the job summary (GITHUB_STEP_SUMMARY) was not written: %v\n", err)
	}
	return nil
}
