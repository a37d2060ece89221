package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// workflow is the part of a GitHub Actions workflow that github-run
// and secrets read.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs yaml.Node         `yaml:"jobs"`
}

type job struct {
	If    string            `yaml:"if"`
	Needs stringList        `yaml:"needs"`
	Env   map[string]string `yaml:"env"`
	Steps []step            `yaml:"steps"`
}

type step struct {
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// stringList is a YAML string or list of strings.
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = []string{n.Value}
		return nil
	}
	return n.Decode((*[]string)(l))
}

// namedJob is a job and its id, in the workflow's order.
type namedJob struct {
	id string
	job
}

func readWorkflow(path string) (*workflow, []namedJob, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var jobs []namedJob
	for i := 0; i+1 < len(wf.Jobs.Content); i += 2 {
		var j job
		if err := wf.Jobs.Content[i+1].Decode(&j); err != nil {
			return nil, nil, fmt.Errorf("%s: job %s: %w", path, wf.Jobs.Content[i].Value, err)
		}
		jobs = append(jobs, namedJob{wf.Jobs.Content[i].Value, j})
	}
	return &wf, jobs, nil
}

// keyValues is a flag given as KEY=VALUE, any number of times.
type keyValues map[string]string

func (kv keyValues) String() string { return fmt.Sprint(map[string]string(kv)) }
func (kv keyValues) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("%q is not KEY=VALUE", s)
	}
	kv[k] = v
	return nil
}

// run is one run of a workflow.
type run struct {
	event, runID, attempt      string
	repo, cache, artifacts     string
	out                        string
	vars, secrets, inputs, env keyValues
}

func githubRun(args []string) error {
	r := run{vars: keyValues{}, secrets: keyValues{}, inputs: keyValues{}, env: keyValues{}}
	fs := flag.NewFlagSet("github-run", flag.ExitOnError)
	fs.StringVar(&r.event, "event", "push", "the event: push, pull_request or workflow_dispatch")
	fs.StringVar(&r.runID, "run-id", "1", "github.run_id")
	fs.StringVar(&r.attempt, "run-attempt", "1", "github.run_attempt")
	fs.StringVar(&r.repo, "repo", ".", "the repository that checkout copies")
	fs.StringVar(&r.cache, "cache", "", "the folder of the cache actions (required)")
	fs.StringVar(&r.artifacts, "artifacts", "", "the folder of the artifact actions (required)")
	fs.StringVar(&r.out, "out", "", "the folder of the jobs' logs and summaries (required)")
	fs.Var(r.vars, "var", "a repository variable, KEY=VALUE")
	fs.Var(r.secrets, "secret", "a secret, KEY=VALUE")
	fs.Var(r.inputs, "input", "a workflow_dispatch input, KEY=VALUE")
	fs.Var(r.env, "env", "a variable of the runner's environment, KEY=VALUE (PATH and HOME are the process's)")
	fs.Parse(args)
	if fs.NArg() != 1 || r.cache == "" || r.artifacts == "" || r.out == "" {
		return errors.New("github-run needs -cache, -artifacts, -out and one WORKFLOW")
	}
	wf, jobs, err := readWorkflow(fs.Arg(0))
	if err != nil {
		return err
	}
	results := map[string]string{}
	failed := false
	for len(results) < len(jobs) {
		progressed := false
		for _, j := range jobs {
			if results[j.id] != "" || slices.ContainsFunc(j.Needs, func(n string) bool { return results[n] == "" }) {
				continue
			}
			progressed = true
			result, err := r.job(wf, j, results)
			if err != nil {
				return fmt.Errorf("job %s: %w", j.id, err)
			}
			results[j.id] = result
			fmt.Printf("job %s: %s\n", j.id, result)
			failed = failed || result == "failure"
		}
		if !progressed {
			return errors.New("the jobs' needs make a circle")
		}
	}
	if failed {
		return errors.New("a job failed")
	}
	return nil
}

// values are the expression values of a job, before its steps.
func (r *run) values(needs map[string]string, runnerTemp string) map[string]string {
	v := map[string]string{"github.event_name": r.event, "github.run_id": r.runID, "github.run_attempt": r.attempt,
		"github.token": "emulated-token", "runner.temp": runnerTemp}
	for k, x := range r.vars {
		v["vars."+k] = x
	}
	for k, x := range r.secrets {
		v["secrets."+k] = x
	}
	for k, x := range r.inputs {
		v["inputs."+k] = x
	}
	for id, result := range needs {
		v["needs."+id+".result"] = result
	}
	return v
}

// job runs j and returns its result: success, failure or skipped.
func (r *run) job(wf *workflow, j namedJob, results map[string]string) (string, error) {
	status := "success"
	for _, n := range j.Needs {
		if results[n] != "success" {
			status = "failure" // success() is false; a skipped need counts so too
		}
	}
	needs := map[string]string{}
	for _, n := range j.Needs {
		needs[n] = results[n]
	}
	temp, err := os.MkdirTemp("", "runner-temp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(temp)
	s := &scope{values: r.values(needs, temp), status: status}
	if ok, err := s.condition(j.If); err != nil || !ok {
		return "skipped", err
	}
	s.status = "success"
	workspace := filepath.Join(temp, "workspace")
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		return "", err
	}
	env := map[string]string{}
	for _, layer := range []map[string]string{wf.Env, j.Env} {
		for k, x := range layer {
			if env[k], err = s.interpolate(x); err != nil {
				return "", err
			}
			s.values["env."+k] = env[k]
		}
	}
	log, err := os.Create(filepath.Join(r.out, j.id+".log"))
	if err != nil {
		return "", err
	}
	defer log.Close()
	summary := filepath.Join(r.out, j.id+".summary.md")
	os.Remove(summary)
	for i, st := range j.Steps {
		if ok, err := s.condition(st.If); err != nil {
			return "", err
		} else if !ok {
			fmt.Fprintf(log, "--- step %d %s%s: skipped\n", i+1, st.Name, st.Uses)
			continue
		}
		fmt.Fprintf(log, "--- step %d %s%s\n", i+1, st.Name, st.Uses)
		if err := r.step(s, st, env, workspace, temp, summary, log); err != nil {
			fmt.Fprintf(log, "--- step %d failed: %v\n", i+1, err)
			s.status = "failure"
		}
	}
	return s.status, nil
}

// step runs one step in workspace.
func (r *run) step(s *scope, st step, jobEnv map[string]string, workspace, temp, summary string, log io.Writer) error {
	with := map[string]string{}
	for k, x := range st.With {
		v, err := s.interpolate(x)
		if err != nil {
			return err
		}
		with[k] = v
	}
	action, _, _ := strings.Cut(st.Uses, "@")
	switch action {
	case "":
	case "actions/checkout":
		return copyTree(r.repo, workspace)
	case "actions/setup-go":
		return nil
	case "actions/cache/restore":
		return r.restore(with, log)
	case "actions/cache/save":
		// A key may hold any character: a folder is named by it escaped.
		dst := filepath.Join(r.cache, url.PathEscape(with["key"]))
		if _, err := os.Stat(dst); err == nil {
			fmt.Fprintf(log, "cache key %s exists: not saved\n", with["key"])
			return nil
		}
		fmt.Fprintf(log, "cache saved: %s\n", with["key"])
		if err := copyTree(with["path"], dst); err != nil {
			return err
		}
		// A restore takes the newest entry by its time of saving, as
		// GitHub's does: not the time the copied folder kept.
		now := time.Now()
		return os.Chtimes(dst, now, now)
	case "actions/upload-artifact":
		dst := filepath.Join(r.artifacts, r.runID, with["name"])
		src := with["path"]
		if !filepath.IsAbs(src) {
			src = filepath.Join(workspace, src)
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		if _, err := os.Stat(src); err != nil {
			fmt.Fprintf(log, "no files for artifact %s\n", with["name"])
			return nil
		}
		return copyTree(src, filepath.Join(dst, filepath.Base(src)))
	case "actions/download-artifact":
		id := with["run-id"]
		if id == "" {
			id = r.runID
		}
		return copyTree(filepath.Join(r.artifacts, id, with["name"]), workspace)
	default:
		return fmt.Errorf("no emulation of %s", st.Uses)
	}
	return r.shell(s, st, jobEnv, workspace, temp, summary, log)
}

// restore is actions/cache/restore: the key, else the newest key that
// starts with a line of restore-keys.
func (r *run) restore(with map[string]string, log io.Writer) error {
	entries, _ := os.ReadDir(r.cache)
	pick := ""
	if _, err := os.Stat(filepath.Join(r.cache, url.PathEscape(with["key"]))); err == nil {
		pick = url.PathEscape(with["key"])
	}
	for _, prefix := range strings.Fields(with["restore-keys"]) {
		if pick != "" {
			break
		}
		var matches []os.DirEntry
		for _, e := range entries {
			if key, _ := url.PathUnescape(e.Name()); strings.HasPrefix(key, prefix) {
				matches = append(matches, e)
			}
		}
		sort.Slice(matches, func(a, b int) bool {
			ia, _ := matches[a].Info()
			ib, _ := matches[b].Info()
			return ia.ModTime().After(ib.ModTime())
		})
		if len(matches) > 0 {
			pick = matches[0].Name()
		}
	}
	if pick == "" {
		fmt.Fprintln(log, "cache miss")
		return nil
	}
	fmt.Fprintf(log, "cache restored from %s\n", pick)
	return copyTree(filepath.Join(r.cache, pick), with["path"])
}

// shell runs a run: step as GitHub's bash does: bash --noprofile
// --norc -eo pipefail, in the workspace.
func (r *run) shell(s *scope, st step, jobEnv map[string]string, workspace, temp, summary string, log io.Writer) error {
	script, err := s.interpolate(st.Run)
	if err != nil {
		return err
	}
	stepSummary := filepath.Join(temp, "step-summary")
	os.Remove(stepSummary)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_EVENT_NAME=" + r.event, "GITHUB_RUN_ID=" + r.runID, "GITHUB_RUN_ATTEMPT=" + r.attempt,
		"GITHUB_WORKSPACE=" + workspace, "RUNNER_TEMP=" + temp, "GITHUB_STEP_SUMMARY=" + stepSummary,
		"GITHUB_OUTPUT=" + filepath.Join(temp, "output"), "GITHUB_ENV=" + filepath.Join(temp, "env")}
	if sha, err := exec.Command("git", "-C", r.repo, "rev-parse", "HEAD").Output(); err == nil {
		env = append(env, "GITHUB_SHA="+strings.TrimSpace(string(sha))) // the commit the run is for
	}
	for k, x := range r.env {
		env = append(env, k+"="+x)
	}
	for k, x := range jobEnv {
		env = append(env, k+"="+x)
	}
	for k, x := range st.Env {
		v, err := s.interpolate(x)
		if err != nil {
			return err
		}
		env = append(env, k+"="+v)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = workspace, env, log, log
	runErr := cmd.Run()
	if text, err := os.ReadFile(stepSummary); err == nil {
		f, err := os.OpenFile(summary, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		f.Write(text)
		f.Close()
	}
	return runErr
}

// copyTree copies the file or folder src to dst, as cp -a does.
func copyTree(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if info, err := os.Stat(src); err == nil && info.IsDir() {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		src += "/."
	}
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp %s %s: %v: %s", src, dst, err, out)
	}
	return nil
}
