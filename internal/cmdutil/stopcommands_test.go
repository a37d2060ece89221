package cmdutil

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wbsctl/wbsctl/internal/actionstest"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"pgregory.net/rapid"
)

// hostileData is what an element's description or a file could hold: a
// line that a GitHub Actions runner would run as a workflow command.
const hostileData = "\n::add-mask::x\n"

var fenceOpening = regexp.MustCompile(`(?m)^::stop-commands::([0-9a-f]{32})\n`)

// runData writes each of writes through DataOut, as one command's
// calls of it do, and ends the command's run.
func runData(t *testing.T, s *iostreams.IOStreams, writes ...string) {
	t.Helper()
	for _, w := range writes {
		if _, err := DataOut(s).Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EndFence(); err != nil {
		t.Fatal(err)
	}
}

// fenceLine is a line the fence writes.
var fenceLine = regexp.MustCompile(`(?m)^::(stop-commands::)?[0-9a-f]{32}(::)?\n`)

// Under GitHub Actions the data comes out whole, a fence opened before
// its first line that reads as a workflow command, and the runner runs
// none of it.
func TestDataOutFencesDataUnderGitHubActions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tty    bool
		writes []string
		// beforeClosing is what the fence adds so that its closing
		// line starts a line.
		beforeClosing string
	}{
		{name: "in one write", writes: []string{"head" + hostileData}},
		{name: "in several calls of DataOut", writes: []string{"HTTP/1.1 200 OK\n", "", "{}" + hostileData, "{}\n"}},
		{name: "split inside the command", writes: []string{"head\n  :", ":add-mask::x\n"}},
		{name: "without a final newline", writes: []string{hostileData + "tail"}, beforeClosing: "\n"},
		{name: "ending in a carriage return", writes: []string{hostileData + "tail\r"}},
		{name: "on a terminal", tty: true, writes: []string{hostileData}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, out, _ := iostreams.Test()
			s.ActionsLog, s.StdoutTTY = true, tc.tty
			runData(t, s, tc.writes...)
			data := strings.Join(tc.writes, "")
			if !strings.Contains(out.String(), "::stop-commands::") {
				t.Fatalf("no fence: %q", out)
			}
			lines := strings.NewReplacer("\r\n", "\n", "\r", "\n")
			if got := fenceLine.ReplaceAllString(lines.Replace(out.String()), ""); got != lines.Replace(data+tc.beforeClosing) {
				t.Errorf("the data without the fence is %q, want %q (wrote %q)", got, data, out)
			}
			if !slices.Contains(actionstest.Commands(data), "add-mask") {
				t.Fatalf("the test's data runs no command: %q", data)
			}
			if run := actionstest.Commands(out.String() + "::notice::after\n"); !slices.Equal(run, []string{"notice"}) {
				t.Errorf("the runner ran %q, want only the notice after the fence (wrote %q)", run, out)
			}
		})
	}
}

// The fence holds over any data in any writes: the data comes out
// whole, no line of it runs, and data with no line that reads as a
// command comes out exactly as it is, so that $(wbsctl …) reads a value
// as it is.
func TestFenceOverAnyData(t *testing.T) {
	piece := rapid.SampledFrom([]string{":", "::", " ", "\t", "\n", "\r", "a", "é", "\u00a0", "add-mask", "x"})
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SliceOfN(piece, 0, 8), 0, 6).Draw(t, "writes")
		s, _, out, _ := iostreams.Test()
		s.ActionsLog = true
		data := ""
		for _, p := range parts {
			w := strings.Join(p, "")
			data += w
			if _, err := DataOut(s).Write([]byte(w)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.EndFence(); err != nil {
			t.Fatal(err)
		}
		if run := actionstest.Commands(out.String() + "\n::notice::after\n"); !slices.Equal(run, []string{"notice"}) {
			t.Fatalf("the runner ran %q of %q", run, out)
		}
		commandLike := false
		for line := range strings.SplitSeq(strings.ReplaceAll(data, "\r", "\n"), "\n") {
			commandLike = commandLike || strings.HasPrefix(strings.TrimLeft(line, " \t\u00a0é"), "::")
		}
		if !commandLike && out.String() != data {
			t.Fatalf("data with no command line came out as %q, want %q", out, data)
		}
		lines := strings.NewReplacer("\r\n", "\n", "\r", "\n")
		if got, want := fenceLine.ReplaceAllString(lines.Replace(out.String()), ""), lines.Replace(data); got != want && got != want+"\n" {
			t.Fatalf("the data without the fence is %q, want %q", got, data)
		}
	})
}

// A token is drawn for each fence: one seen in a log does not end the
// next.
func TestFenceTokensAreNeverReused(t *testing.T) {
	s, _, out, _ := iostreams.Test()
	s.ActionsLog = true
	var tokens []string
	for range 3 {
		out.Reset()
		runData(t, s, hostileData)
		m := fenceOpening.FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no fence: %q", out)
		}
		if slices.Contains(tokens, m[1]) {
			t.Fatalf("token %s used twice", m[1])
		}
		tokens = append(tokens, m[1])
	}
	// Another run, with streams of its own.
	other, _, otherOut, _ := iostreams.Test()
	other.ActionsLog = true
	runData(t, other, hostileData)
	if m := fenceOpening.FindStringSubmatch(otherOut.String()); m == nil || slices.Contains(tokens, m[1]) {
		t.Fatalf("the other run's fence %q reuses one of %q", otherOut, tokens)
	}
}

// Outside GitHub Actions, and under it before any data, the output is
// the data and nothing else.
func TestDataOutUnfencedOutsideGitHubActions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		actionsLog bool
		data       string
	}{
		{name: "outside GitHub Actions", data: "head" + hostileData},
		{name: "under GitHub Actions without data", actionsLog: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, out, _ := iostreams.Test()
			s.ActionsLog = tc.actionsLog
			runData(t, s, tc.data)
			if out.String() != tc.data {
				t.Errorf("wrote %q, want %q", out, tc.data)
			}
		})
	}
}

// The process's streams are fenced when GITHUB_ACTIONS=true and stdout
// is what the runner reads, not a file it was redirected to.
func TestSystemStreamsFenceWhereTheRunnerReads(t *testing.T) {
	pipe := func(t *testing.T) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return w
	}
	file := func(t *testing.T) *os.File {
		f, err := os.Create(filepath.Join(t.TempDir(), "elements.csv"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, tc := range []struct {
		name          string
		githubActions string
		stdout        func(*testing.T) *os.File
		want          bool
	}{
		{"GITHUB_ACTIONS=true, stdout the runner's pipe", "true", pipe, true},
		{"GITHUB_ACTIONS=true, stdout a file", "true", file, false},
		{"GITHUB_ACTIONS unset", "", pipe, false},
		{"GITHUB_ACTIONS=false", "false", pipe, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GITHUB_ACTIONS", tc.githubActions)
			stdout := os.Stdout
			t.Cleanup(func() { os.Stdout = stdout })
			os.Stdout = tc.stdout(t)
			if got := iostreams.System().ActionsLog; got != tc.want {
				t.Errorf("ActionsLog = %v, want %v", got, tc.want)
			}
		})
	}
}
