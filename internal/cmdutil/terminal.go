package cmdutil

import (
	"io"

	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/internal/output"
)

// DataOut is where a command writes data it does not give a Printer: an
// answer's body, a stream of JSON lines, an exported file. On a terminal
// every character a terminal would act on is escaped
// (output.TerminalWriter); to a pipe or a file the data stays exact.
// Under GitHub Actions the data is fenced so that none of it runs as a
// workflow command (IOStreams.FencedOut); the fence ends when the
// command's run does (IOStreams.EndFence). Messages go through
// output.Escape instead.
func DataOut(s *iostreams.IOStreams) io.Writer {
	if s.IsStdoutTTY() {
		return output.TerminalWriter(s.FencedOut())
	}
	return s.FencedOut()
}

// JobURL is the address of the CI job wbsctl runs in, "" outside one:
// GitHub Actions' run (GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/
// GITHUB_RUN_ID) or GitLab's CI_JOB_URL. A lock names it, so that a run
// refused knows which job to wait for.
func JobURL(getenv func(string) string) string {
	if url := getenv("CI_JOB_URL"); url != "" {
		return url
	}
	server, repo, run := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
	if server == "" || repo == "" || run == "" {
		return ""
	}
	return server + "/" + repo + "/actions/runs/" + run
}
