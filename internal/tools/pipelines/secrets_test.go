package main

import (
	"strings"
	"testing"
)

// The check of the shipped pipelines passes, and fails on the pipelines
// of an earlier release, whose plan job ran for pull requests with the
// secret in the workflow's env (GitHub) and against the platform in
// merge requests (GitLab); and on a workflow that hands every job the
// secret through a pull_request_target.
func TestSecretsCheck(t *testing.T) {
	if err := checkSecrets("../../../examples/ci/github-actions.yml", "../../../examples/ci/gitlab-ci.yml", "WBSCTL_CLIENT_SECRET"); err != nil {
		t.Fatalf("the shipped pipelines: %v", err)
	}
	err := checkSecrets("testdata/pr-reads-secret.github.yml", "testdata/mr-plans.gitlab-ci.yml", "WBSCTL_CLIENT_SECRET")
	for _, want := range []string{"job plan runs for pull_request and can read secrets.WBSCTL_CLIENT_SECRET",
		"job plan runs for merge requests and runs wbsctl against the platform"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the earlier pipelines: %v, want %q", err, want)
		}
	}
	if err == nil || strings.Contains(err.Error(), "job apply") {
		t.Errorf("the earlier apply job ran only on push: %v", err)
	}
	err = checkSecrets("../../../examples/ci/github-actions.yml", "testdata/mr-names-secret.gitlab-ci.yml", "WBSCTL_CLIENT_SECRET")
	if err == nil || strings.Count(err.Error(), "job check runs for merge requests and names $WBSCTL_CLIENT_SECRET") != 2 {
		t.Errorf("a merge request's job naming the secret in its script and variables: %v", err)
	}
}

// GitHub's expressions as the example workflow writes them.
func TestConditions(t *testing.T) {
	s := &scope{values: map[string]string{"github.event_name": "pull_request", "needs.plan.result": "skipped", "inputs.plan_run_id": ""}, status: "failure"}
	for expr, want := range map[string]bool{
		"github.event_name == 'pull_request'":                                                         false, // success() && in front, and a need failed
		"always() && github.event_name == 'pull_request'":                                             true,
		"!cancelled() && (needs.plan.result == 'success' || inputs.plan_run_id != '')":                false,
		"${{ !cancelled() && (github.event_name == 'push' || github.event_name == 'PULL_REQUEST') }}": true,
	} {
		if got, err := s.condition(expr); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", expr, got, err, want)
		}
	}
	if v, _ := (&scope{values: map[string]string{"github.run_id": "7"}}).interpolate("run ${{ inputs.plan_run_id || github.run_id }}"); v != "run 7" {
		t.Errorf("|| yields an operand: %q", v)
	}
}
