// Command pipelines runs and checks the example CI pipelines of
// examples/ci, for scripts/check-pipelines.
//
//	pipelines github-run [flags] WORKFLOW   run a GitHub Actions workflow's jobs here
//	pipelines secrets GITHUB_WORKFLOW GITLAB_CI SECRET
//
// github-run runs the jobs of one event as a runner would, in the order
// their needs give: each run: step in bash, with the Actions environment
// (GITHUB_ACTIONS, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP, …),
// the expressions of if:, env: and with: evaluated, secrets given only
// where the workflow names them, and the actions the example uses
// emulated: checkout copies the repository, the cache actions keep
// folders by key in -cache (restore takes the newest of a prefix, save
// never overwrites a key), the artifact actions keep them by run in
// -artifacts, setup-go does nothing (Go is on PATH). Each job's summary
// is written to -out/JOB.summary.md and its log to -out/JOB.log.
//
// secrets fails when a job that runs for pull requests or merge
// requests can read SECRET: on GitHub, one whose if: lets a
// pull_request or pull_request_target event through and whose env (or
// the workflow's) names secrets.SECRET; on GitLab, one whose rules let a
// merge request pipeline through and that runs a wbsctl command other
// than a --check, or names $SECRET.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "github-run":
		err = githubRun(os.Args[2:])
	case "secrets":
		if len(os.Args) != 5 {
			usage()
		}
		err = checkSecrets(os.Args[2], os.Args[3], os.Args[4])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipelines:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: pipelines github-run [flags] WORKFLOW | pipelines secrets GITHUB_WORKFLOW GITLAB_CI SECRET")
	os.Exit(2)
}
