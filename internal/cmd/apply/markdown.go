package apply

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wbsctl/wbsctl/internal/engine"
	"github.com/wbsctl/wbsctl/internal/output"
)

// markdownFormat is -o markdown: the plan, or the results of a run, as
// GitHub-flavoured Markdown, for a pull-request comment or a job summary.
const markdownFormat = output.Format("markdown")

// markdownLimit bounds the Markdown of a plan or of results, below the
// 65,536 characters of a pull-request comment: past it the rows stop and
// a line counts the rest. A job summary may give a table less room: see
// budgetWriter.
const markdownLimit = 60_000

// mdCodeLimit bounds, in bytes, a value shown in a cell. A value from a
// file or the platform has no bound of its own (an organization code of
// 70 KB is valid), and a row that took a table's whole room would leave
// out every row after it; cut, the value keeps its row, and no row is
// more than a few kilobytes.
const mdCodeLimit = 1_000

// mdTailRoom is kept free below a table's room for the line that counts
// the rows left out and for a line its caller writes below the table.
const mdTailRoom = 512

// mdRow is a row of a table: its cells, made only if the row is shown,
// and its action, under which it is counted if it is left out.
type mdRow struct {
	cells  func() []string
	action engine.Action
}

// markdownTable writes a GFM table of header and rows within the room of
// w: markdownLimit, or less for a job summary (budgetWriter). Rows are
// shown in order until one does not fit, so that what is missing is all
// that follows the last row; rest says what the rows left out were,
// given their number and their count per action. Every cell is wbsctl's
// own text or the output of mdCode.
func markdownTable(w io.Writer, title string, header []string, rows iter.Seq[mdRow], rest func(n int, actions string) string) error {
	room := markdownLimit
	if bw, ok := w.(*budgetWriter); ok {
		room = min(room, bw.room)
	}
	room -= mdTailRoom
	b := bufio.NewWriter(w)
	written := 0
	put := func(s string) {
		written += len(s)
		b.WriteString(s)
	}
	line := func(cells []string) string { return "| " + strings.Join(cells, " | ") + " |\n" }
	if title != "" {
		put(fmt.Sprintf("### %s\n\n", title))
	}
	shown := 0
	var left leftOut
	for r := range rows {
		if shown+left.n == 0 {
			put(line(header) + strings.Repeat("|---", len(header)) + "|\n")
		}
		if left.n == 0 {
			if l := line(r.cells()); written+len(l) <= room {
				put(l)
				shown++
				continue
			}
		}
		left.add(r.action)
	}
	if left.n > 0 {
		fmt.Fprintf(b, "\n%s\n", rest(left.n, left.String()))
	}
	return b.Flush()
}

// leftOut counts the rows a table leaves out, per action.
type leftOut struct {
	n     int
	count map[engine.Action]int
}

func (l *leftOut) add(a engine.Action) {
	if l.count == nil {
		l.count = map[engine.Action]int{}
	}
	l.count[a]++
	l.n++
}

// String is the count per action, deletes first as in the table, such
// as "3 deletes, 1197 updates".
func (l *leftOut) String() string {
	var parts []string
	for _, a := range []engine.Action{engine.ActionDelete, engine.ActionCreate, engine.ActionUpdate, engine.ActionUnchanged} {
		switch n := l.count[a]; {
		case n == 0:
		case a == engine.ActionUnchanged:
			parts = append(parts, fmt.Sprintf("%d unchanged", n))
		default:
			parts = append(parts, output.Count(n, a.String()))
		}
	}
	return strings.Join(parts, ", ")
}

// mdCode is text from a file or the platform as a GFM code span, which
// shows it as it is: no emphasis, link, image, HTML or mention comes of
// it. Controls and invisible characters are escaped as on a terminal, a
// pipe is escaped for the table, and the fence is longer than any run of
// backticks in the text. Text longer than mdCodeLimit is cut, with a mark
// after the span that says so and how long the text was.
func mdCode(s string) string {
	cut := ""
	if len(s) > mdCodeLimit {
		cut = fmt.Sprintf(" …(cut, %d bytes in all)", len(s))
		s = s[:runeStart(s, mdCodeLimit)]
	}
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
	return fence + s + fence + cut
}

// runeStart is where the character that holds byte n of s starts, so that
// s cut there does not end in part of a character.
func runeStart(s string, n int) int {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}

// actionMarks are the signs of a change in Markdown, which has no colour.
var actionMarks = map[engine.Action]string{engine.ActionCreate: "➕", engine.ActionUpdate: "✏️", engine.ActionDelete: "➖", engine.ActionUnchanged: "·"}

// writePlanMarkdown writes plan as a GFM table: a change a row, deletes
// first, its fields as in the diff, each value a code span; unchanged
// elements are counted below unless shown. No delete is left out for
// room: when their rows would not all fit, the deletes are listed by
// code above the table, and the table holds the other changes. The
// elements on the platform that the file does not name are listed by
// code above them (a third of the room at most, then counted).
func writePlanMarkdown(w io.Writer, plan *engine.Plan, showUnchanged bool) error {
	room := markdownLimit
	if bw, ok := w.(*budgetWriter); ok {
		room = min(room, bw.room)
	}
	bw := &budgetWriter{w: w, room: room}
	head, listDeletes := planHead(plan, room)
	if _, err := io.WriteString(bw, head); err != nil {
		return err
	}
	rows := func(yield func(mdRow) bool) {
		for _, deletes := range deletesFirst {
			for i := range plan.Changes {
				ch := &plan.Changes[i]
				if (ch.Action == engine.ActionDelete) != deletes || ch.Action == engine.ActionUnchanged && !showUnchanged ||
					deletes && listDeletes {
					continue
				}
				if !yield(mdRow{func() []string { return planCells(ch.Step()) }, ch.Action}) {
					return
				}
			}
		}
	}
	err := markdownTable(bw, "", []string{"Action", "Code", "Line", "Changes"}, rows, func(n int, actions string) string {
		return fmt.Sprintf("_…and %d more changes, left out to keep this page short (%s): `wbsctl apply --dry-run -o json` or a saved plan holds them all._", n, actions)
	})
	if err != nil {
		return err
	}
	return planFoot(bw, plan, showUnchanged)
}

// planCells are the cells of a change's row.
func planCells(ch engine.Step) []string {
	plain := func(_, s string) string { return s }
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

// planHead is what a Markdown plan says above its table, within room:
// its title, the elements the file does not name, and, when their rows
// would not all fit (listDeletes), the deletes by code.
func planHead(plan *engine.Plan, room int) (head string, listDeletes bool) {
	head = fmt.Sprintf("### %s\n\n", planTitle(plan.Counts()))
	if len(plan.Unmanaged) > 0 {
		head += codeList("**"+unmanagedLine(len(plan.Unmanaged))+":**", plan.Unmanaged, room/3,
			"`wbsctl apply --dry-run -o json` lists them all") + "\n\n"
	}
	var deletes []string
	rows := 0
	for i := range plan.Changes {
		if ch := &plan.Changes[i]; ch.Action == engine.ActionDelete {
			deletes = append(deletes, ch.Code)
			rows += len("| "+strings.Join(planCells(ch.Step()), " | ")+" |\n") + 1
		}
	}
	if len(head)+rows <= room-2*mdTailRoom {
		return head, false
	}
	return head + codeList(fmt.Sprintf("**%d to delete:**", len(deletes)), deletes, room-len(head)-2*mdTailRoom,
		"a saved plan (`--out`) holds them all") + "\n\n", true
}

// planFoot is what a Markdown plan says below its table: whether it has
// nothing to do, the unchanged elements not listed, and what it verified.
func planFoot(w io.Writer, plan *engine.Plan, showUnchanged bool) error {
	var err error
	switch n := plan.Counts()[engine.ActionUnchanged]; {
	case plan.Unread > 0:
		_, err = fmt.Fprintf(w, "\n**%s.**\n", partialLine(plan.Unread))
	case plan.Quiet():
		_, err = fmt.Fprintln(w, "No changes: the platform holds what the file says.")
	case !plan.Pending():
		_, err = fmt.Fprintln(w, "No changes to make to the elements the file names.")
	case n > 0 && !showUnchanged:
		_, err = fmt.Fprintf(w, "\n%d unchanged, not listed.\n", n)
	}
	if v := plan.Verification; v != nil && err == nil {
		_, err = fmt.Fprintf(w, "\n_%s._\n", v.String(time.Now()))
	}
	return err
}

// codeList is label and the codes as code spans, as many as fit in room
// bytes, then a count of the rest and where to read them.
func codeList(label string, codes []string, room int, rest string) string {
	var b strings.Builder
	b.WriteString(label)
	for i, code := range codes {
		item := " " + mdCode(code)
		if i < len(codes)-1 {
			item += ","
		}
		if b.Len()+len(item)+len(rest)+64 > room {
			fmt.Fprintf(&b, " _…and %d more: %s._", len(codes)-i, rest)
			break
		}
		b.WriteString(item)
	}
	return b.String()
}

// deletesFirst is the order of a table's rows: the deletes, then the
// rest in plan order, so that a table cut short by its room still shows
// what is deleted, which a reviewer must not miss.
var deletesFirst = [...]bool{true, false}

// planTitle counts the plan's changes, its deletes first when it has
// any. Without deletes it keeps the wording scripts and pipelines match,
// such as "wbsctl plan: 40 to create".
func planTitle(counts map[engine.Action]int) string {
	rest := fmt.Sprintf("%d to create, %d to update, %d unchanged", counts[engine.ActionCreate], counts[engine.ActionUpdate], counts[engine.ActionUnchanged])
	if n := counts[engine.ActionDelete]; n > 0 {
		return fmt.Sprintf("wbsctl plan: %d to delete, %s", n, rest)
	}
	return "wbsctl plan: " + rest + ", 0 to delete"
}

// writeResultsMarkdown writes the outcome of a run as a GFM table of the
// changes that were made, failed or left out, deletes first, with the
// platform's message, under the run's summary.
func writeResultsMarkdown(w io.Writer, results *engine.Results, sum engine.Summary) error {
	marks := map[engine.Status]string{engine.StatusOK: "✅", engine.StatusFailed: "❌", engine.StatusSkipped: "⏭️", engine.StatusInvalid: "⚠️"}
	cells := func(r engine.Result) []string {
		line, detail := "", ""
		if r.Line > 0 {
			line = strconv.Itoa(r.Line)
		}
		if r.Detail != "" {
			detail = mdCode(r.Detail)
		}
		return []string{marks[r.Status] + " " + string(r.Status), r.Action.String(), mdCode(r.Code), line, detail}
	}
	rows := func(yield func(mdRow) bool) {
		for _, deletes := range deletesFirst {
			for _, r := range results.All() {
				if (r.Action == engine.ActionDelete) != deletes || r.Action == engine.ActionUnchanged && r.Status == engine.StatusOK {
					continue
				}
				if !yield(mdRow{func() []string { return cells(r) }, r.Action}) {
					return
				}
			}
		}
	}
	return markdownTable(w, "wbsctl apply: "+summaryLine(sum), []string{"Result", "Action", "Code", "Line", "Detail"}, rows, func(n int, actions string) string {
		return fmt.Sprintf("_…and %d more results, left out to keep this page short (%s): `--report FILE` holds them all._", n, actions)
	})
}

// stepSummaryLimit is the most GitHub takes of a step's job summary:
// past 1 MiB it shows an error in its place. The wbsctl calls of a step
// all append to one file, so each gives its table only the room left.
const stepSummaryLimit = 1 << 20

// stepSummaryMargin stays free below stepSummaryLimit for what the
// step's other tools append after wbsctl, and for summaryFullNote.
const stepSummaryMargin = 32 << 10

// stepSummaryMinRoom is the least room a table is written in: in less it
// would show too few rows to be worth its place, and summaryFullNote is
// written instead.
const stepSummaryMinRoom = 4 << 10

// summaryFullNote says on the page, once, why later plans and results
// are not there.
const summaryFullNote = "\n_wbsctl: this job summary is close to GitHub's 1 MiB limit: later plans and results are in the job's log only._\n"

// errSummaryFull is the warning of a call whose table found no room.
var errSummaryFull = fmt.Errorf("it is within %d KiB of GitHub's 1 MiB limit", stepSummaryMargin>>10)

// appendStepSummary appends what write writes to o.StepSummary, the job
// summary of GitHub Actions, when one is named, within the room the file
// has left. A summary that cannot be written is said on stderr: the
// job's own work is not failed for it.
func appendStepSummary(o *Options, write func(io.Writer) error) error {
	if o.StepSummary == "" {
		return nil
	}
	if err := appendWithinLimit(o.StepSummary, write); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "warning: the job summary (GITHUB_STEP_SUMMARY) was not written: %v\n", err)
	}
	return nil
}

// appendWithinLimit appends what write writes to the file name, giving
// it the room below stepSummaryLimit that the file has left, less the
// margin; without room enough it appends summaryFullNote instead.
func appendWithinLimit(name string, write func(io.Writer) error) (err error) {
	f, err := openStepSummary(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or a device would take the summary, or wait for a
		// reader, where GitHub gives a file.
		return fmt.Errorf("%s is no regular file", output.Escape(name))
	}
	if room := stepSummaryLimit - stepSummaryMargin - fi.Size(); room >= stepSummaryMinRoom {
		return write(&budgetWriter{w: f, room: int(room)})
	}
	if err := noteSummaryFull(f, fi.Size()); err != nil {
		return err
	}
	return errSummaryFull
}

// noteSummaryFull appends summaryFullNote to f, of size bytes, unless f
// already ends with it (an earlier call found the summary full) or it
// would pass the limit.
func noteSummaryFull(f *os.File, size int64) error {
	note := []byte(summaryFullNote)
	if size+int64(len(note)) > stepSummaryLimit {
		return nil
	}
	if size >= int64(len(note)) {
		tail := make([]byte, len(note))
		if _, err := f.ReadAt(tail, size-int64(len(note))); err == nil && bytes.Equal(tail, note) {
			return nil
		}
	}
	_, err := f.Write(note)
	return err
}

// budgetWriter takes at most room bytes. markdownTable reads room to end
// its table at a row; a write past it, which that reading should never
// let happen, is refused rather than let the file pass the limit.
type budgetWriter struct {
	w    io.Writer
	room int
}

func (bw *budgetWriter) Write(p []byte) (int, error) {
	if len(p) > bw.room {
		return 0, errors.New("no room left below GitHub's 1 MiB limit")
	}
	bw.room -= len(p)
	return bw.w.Write(p)
}

// isSymlink reports whether name is a symbolic link.
func isSymlink(name string) bool {
	fi, err := os.Lstat(name)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// symlinkRefused is the error for a GITHUB_STEP_SUMMARY that is a
// symbolic link: the runner makes the file, and a link in its place could
// have wbsctl append to any file the job can write.
func symlinkRefused(name string) error {
	return fmt.Errorf("%s is a symbolic link, which wbsctl does not follow", name)
}
