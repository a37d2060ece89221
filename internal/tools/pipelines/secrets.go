package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// checkSecrets fails when a job that a pull request or merge request
// runs, with that request's own copy of the pipeline, can read secret.
func checkSecrets(githubWorkflow, gitlabCI, secret string) error {
	var problems []string
	gh, err := githubSecretJobs(githubWorkflow, secret)
	if err != nil {
		return err
	}
	problems = append(problems, gh...)
	gl, err := gitlabSecretJobs(gitlabCI, secret)
	if err != nil {
		return err
	}
	problems = append(problems, gl...)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	fmt.Printf("no pull-request or merge-request job of %s or %s can read %s\n", githubWorkflow, gitlabCI, secret)
	return nil
}

// githubSecretJobs lists the jobs that run for pull_request or
// pull_request_target and name secrets.SECRET, in their own text or the
// workflow's env.
func githubSecretJobs(path, secret string) ([]string, error) {
	wf, jobs, err := readWorkflow(path)
	if err != nil {
		return nil, err
	}
	names := regexp.MustCompile(`secrets\.` + regexp.QuoteMeta(secret) + `\b|secrets\[|secrets:\s*inherit|toJSON\(secrets\)`)
	workflowWide := false
	for _, v := range wf.Env {
		workflowWide = workflowWide || names.MatchString(v)
	}
	var problems []string
	for _, event := range []string{"pull_request", "pull_request_target"} {
		// The jobs in order, each run or skipped as the event makes it.
		results := map[string]string{}
		for i, j := range jobs {
			needs, status := map[string]string{}, "success"
			for _, n := range j.Needs {
				needs[n] = results[n]
				if results[n] != "success" {
					status = "failure"
				}
			}
			s := &scope{values: (&run{event: event}).values(needs, ""), status: status}
			ok, err := s.condition(j.If)
			if err != nil {
				return nil, fmt.Errorf("%s: job %s: %w", path, j.id, err)
			}
			results[j.id] = "skipped"
			if !ok {
				continue
			}
			results[j.id] = "success"
			var text strings.Builder
			yaml.NewEncoder(&text).Encode(wf.Jobs.Content[2*i+1])
			if workflowWide || names.MatchString(text.String()) {
				problems = append(problems, fmt.Sprintf("%s: job %s runs for %s and can read secrets.%s", path, j.id, event, secret))
			}
		}
	}
	return problems, nil
}

// gitlabJob is the part of a GitLab CI job the check reads.
type gitlabJob struct {
	Extends      stringList   `yaml:"extends"`
	Rules        []gitlabRule `yaml:"rules"`
	BeforeScript stringList   `yaml:"before_script"`
	Script       stringList   `yaml:"script"`
	Variables    map[string]string
}

type gitlabRule struct {
	If   string `yaml:"if"`
	When string `yaml:"when"`
}

// gitlabSecretJobs lists the jobs that a merge request pipeline runs and
// that name $SECRET or run wbsctl with the platform (anything but a
// --check or an install): a protected variable keeps the secret from
// them, so such a job would fail, or tempt its owner to unprotect it.
func gitlabSecretJobs(path, secret string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var all map[string]yaml.Node
	if err := yaml.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	jobs := map[string]*gitlabJob{}
	for name, node := range all {
		if node.Kind != yaml.MappingNode {
			continue
		}
		var j gitlabJob
		if err := node.Decode(&j); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		jobs[name] = &j
	}
	usesSecret := regexp.MustCompile(`\$\{?` + regexp.QuoteMeta(secret) + `\b`)
	var problems []string
	for name, j := range jobs {
		switch name {
		case "default", "variables", "stages", "include", "workflow":
			continue
		}
		if strings.HasPrefix(name, ".") {
			continue
		}
		rules, lines := j.Rules, append(append(stringList{}, j.BeforeScript...), j.Script...)
		for _, v := range j.Variables {
			lines = append(lines, v)
		}
		for _, base := range j.Extends {
			if t := jobs[base]; t != nil {
				if rules == nil {
					rules = t.Rules
				}
				if j.BeforeScript == nil {
					lines = append(append(stringList{}, t.BeforeScript...), lines...)
				}
			}
		}
		if !mergeRequestRuns(rules) {
			continue
		}
		for _, line := range lines {
			if usesSecret.MatchString(line) {
				problems = append(problems, fmt.Sprintf("%s: job %s runs for merge requests and names $%s", path, name, secret))
			}
			if strings.Contains(line, "wbsctl ") && !strings.Contains(line, "go install") && !strings.Contains(line, "--check") {
				problems = append(problems, fmt.Sprintf("%s: job %s runs for merge requests and runs wbsctl against the platform: %s", path, name, line))
			}
		}
	}
	return problems, nil
}

// mergeRequestRuns reports whether rules let a merge request pipeline
// run the job: no rules, a rule without if, or one that names
// merge_request_event (or the merge request's variables) and is not
// when: never.
func mergeRequestRuns(rules []gitlabRule) bool {
	if len(rules) == 0 {
		return true
	}
	for _, r := range rules {
		if r.When == "never" {
			continue
		}
		if r.If == "" || strings.Contains(r.If, "merge_request") || strings.Contains(r.If, "CI_MERGE_REQUEST") {
			return true
		}
	}
	return false
}
