package apply

import (
	"fmt"
	"io"

	"github.com/wbsctl/wbsctl/internal/output"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// A run that ends in a way a CI job cannot get past by itself says what
// happened and the one thing to do next where the person who looks at
// the job reads: the job summary, and an annotation on the run.

// reportStale tells of a saved plan refused because the platform moved
// (exit 8).
func reportStale(o *Options, err error) {
	next := "Nothing was sent. Make the plan again, review it, and apply that plan: " + o.planAgain()
	report(o, "wbsctl apply: the plan is stale (exit 8)", output.Escape(err.Error()), next)
}

// ciService names the CI service whose job the run is, as its
// environment (getenv) says: "github", "gitlab" or "".
func ciService(getenv func(string) string) string {
	switch {
	case getenv("GITHUB_ACTIONS") == "true":
		return "github"
	case getenv("GITLAB_CI") != "": // "false" under gitlab-ci-local, a pipeline all the same
		return "gitlab"
	}
	return ""
}

// planAgain is how a plan is made anew from the newest commit on the CI
// service of the run: never a re-run of this job's pipeline, which plans
// (or carries out) what an older commit said.
func (o *Options) planAgain() string {
	switch o.CI {
	case "github":
		return `start the workflow with "Run workflow" on the default branch and the plan run id left empty, not a re-run of this run, which plans or carries out again what it did.`
	case "gitlab":
		return "run a new pipeline for the default branch (Build > Pipelines > Run pipeline), not a retry of this one, which plans or carries out again what its own, older commit said."
	}
	return "run the plan from the newest file again (wbsctl apply -f FILE --dry-run --out PLAN) and carry out that plan."
}

// reportFailed tells of a run where some changes failed (exit 6).
func reportFailed(o *Options, failed, total int) {
	next := "The other changes were made and the state records them. Read the failures above (or the report), fix their cause, then plan and apply again: only what is left is sent."
	report(o, "wbsctl apply: some changes failed (exit 6)", fmt.Sprintf("%d of %d changes failed", failed, total), next)
}

// reportInvalid tells of a run that left invalid records out
// (--skip-invalid, exit 6).
func reportInvalid(o *Options, invalid, total int) {
	next := "The valid records were applied. Fix the records named above (or in the report) in the file, and run again: only they are sent."
	report(o, "wbsctl apply: records left out as invalid (exit 6)", fmt.Sprintf("%d of %d records left out as invalid", invalid, total), next)
}

// report writes what happened and the next step to the job summary and,
// on GitHub Actions, as an error annotation of the run; elsewhere the
// next step is written on stderr. A summary that
// cannot be written is told on stderr: the run's own error stands.
func report(o *Options, title, what, next string) {
	if o.Annotate {
		fmt.Fprintf(o.IO.ErrOut, "::error title=%s::%s%s\n", escapeProperty(title), escapeData(what+". "), escapeData(next))
	} else {
		// A GitLab job's log, or a terminal: the next step after the
		// error, where the error is read.
		fmt.Fprintf(o.IO.ErrOut, "next: %s\n", next)
	}
	err := appendStepSummary(o, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "### %s\n\n%s\n\n**Next:** %s\n\n", title, mdCode(what), next)
		return err
	})
	if err != nil {
		fmt.Fprintf(o.IO.ErrOut, "error: writing the job summary: %v\n", err)
	}
}

// reportChecked ends apply --check of a file without problems (readFile
// has refused one with problems, exit 5): it says how many records the
// file holds, on stderr and in the job summary.
func reportChecked(o *Options, f *wbsfile.File) error {
	line := fmt.Sprintf("%s: %d records, no problems", o.File, len(f.Records))
	if len(f.Invalid) > 0 {
		line = fmt.Sprintf("%s: %d records, %d left out as invalid", o.File, len(f.Records), len(f.Invalid))
	}
	fmt.Fprintln(o.IO.ErrOut, output.Escape(line))
	return appendStepSummary(o, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "### wbsctl check\n\n%s\n\n", mdCode(line))
		return err
	})
}

// maxProblemsShown bounds the problems a job summary lists; the
// annotations and the Code Quality report carry every one.
const maxProblemsShown = 100

// reportProblems lists a file's problems in the job summary, where the
// reviewer of a pull request reads the check: place, code, field and
// message, each as text from the file is shown.
func reportProblems(o *Options, e *problemsError) {
	err := appendStepSummary(o, func(w io.Writer) error {
		fmt.Fprintf(w, "### wbsctl check: %s\n\n| where | code | field | problem |\n|---|---|---|---|\n", mdCode(e.Error()))
		for i, p := range e.problems {
			if i == maxProblemsShown {
				fmt.Fprintf(w, "\nand %d more: the annotations of the file's lines show each.\n", len(e.problems)-i)
				break
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdCode(p.Place()), mdCode(p.Code), mdCode(p.Field), mdCode(p.Message))
		}
		_, err := fmt.Fprintln(w)
		return err
	})
	if err != nil {
		fmt.Fprintf(o.IO.ErrOut, "error: writing the job summary: %v\n", err)
	}
}
