package root_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/creack/pty"
	"github.com/spf13/cobra"

	"github.com/wbsctl/wbsctl/internal/cmd/cmdtest"
	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

// runAsWbsctl makes the test binary run wbsctl itself, so that a test can
// start it as a process of its own on a pseudo-terminal.
const runAsWbsctl = "WBSCTL_TERMINAL_RUN_AS_WBSCTL"

func TestMain(m *testing.M) {
	if os.Getenv(runAsWbsctl) == "1" {
		os.Exit(root.Run(context.Background(), cmdutil.New(iostreams.System()), os.Args[1:]))
	}
	os.Exit(m.Run())
}

// hostile holds every class of text a terminal acts on or shows as
// nothing: an OSC title change ended by BEL, a clear screen, the 8-bit
// CSI and OSC, DEL, a right-to-left override, a zero-width space, a word
// joiner, a byte-order mark, a soft hyphen, a line separator and a Hangul
// filler. "Zq" marks where it was, to see that the data was shown.
const hostile = "Zq\x1b]0;t\x07\x1b[2J\u009b\u009d\x7f\u202e\u200b\u2060\ufeff\u00ad\u2028\u3164qZ"

// rawOnTerminal returns the first byte sequence of out that a terminal
// would act on or show as nothing, other than the line ends and tabs of
// the text itself, or "".
func rawOnTerminal(out []byte) string {
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("the byte %#x, not UTF-8, at %d", out[i], i)
		case r == '\n' || r == '\r' || r == '\t':
		case r < 0x20 || r >= 0x7f && r <= 0x9f,
			unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp),
			r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0:
			return fmt.Sprintf("%U at %d: %q", r, i, out[max(0, i-20):min(len(out), i+20)])
		}
		i += size
	}
	return ""
}

// terminalRun is one command line run on a terminal.
type terminalRun struct {
	args []string
	// shows is whether the run prints data of the platform or the
	// file, so that the test sees that the data reached the terminal.
	shows bool
}

// Every command, in every output mode, shows the platform's and the
// file's text on a terminal with nothing a terminal acts on or shows as
// nothing left raw: stdout and stderr, data and errors, structured or
// not. wbsctl runs as a process of its own on a pseudo-terminal, as a
// person runs it.
func TestEveryCommandEscapesOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per command line")
	}
	desc := hostile
	srv := cmdtest.Behind(t, wbstest.New(), hostileFront)
	srv.Put(
		wbstest.Element{Code: "P-1", Description: &desc, IsActive: true,
			BusinessOrganizations: []wbstest.BusinessOrganization{{Code: hostile, EntityType: "company"}}},
		wbstest.Element{Code: "P-\u200b1", Description: &desc, IsActive: true},
	)
	dir := t.TempDir()
	file := filepath.Join(dir, "elements.json")
	// apply refuses control characters in a file; the rest gets through
	// to the plan.
	printable := "Zq\u202e\u200b\u2060\ufeff\u00ad\u3164qZ"
	os.WriteFile(file, []byte(`[{"wbsElementCode":"P-1","description":"`+jsonText("new "+printable)+`"},`+
		`{"wbsElementCode":"N-\u200b1","description":"`+jsonText(printable)+`"}]`), 0o600)
	// An ERP export and its map: the header and the cells hold what a
	// terminal must not act on.
	export := filepath.Join(dir, "export.csv")
	os.WriteFile(export, []byte("Proj"+printable+",Text\nP-1,"+printable+"\nP-"+printable+",x\n"), 0o600)
	wbsmap := filepath.Join(dir, "export.wbsmap.yaml")
	os.WriteFile(wbsmap, []byte("version: 1\nwbsElementCode: {expr: 'trim($env[\"Proj"+printable+"\"])'}\ndescription: Text\n"), 0o600)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"wbsElementCode":"`+jsonText(hostile)+`","`+jsonText(hostile)+`":1}]`), 0o600)
	badCSV := filepath.Join(dir, "bad.csv")
	os.WriteFile(badCSV, []byte("wbsElementCode,isActive\nB-1,"+hostile+"\n"), 0o600)
	plan := filepath.Join(dir, "p.plan")
	// A state whose lineage and lock holder hold the file's kind of text.
	state := filepath.Join(dir, "state")
	os.WriteFile(state, []byte(`{"formatVersion":1,"baseUrl":"u","clientId":"c","lineage":"`+jsonText(hostile)+`","serial":1,"elements":{}}`), 0o600)
	os.WriteFile(state+".lock", []byte("\n"+`{"id":"`+jsonText(hostile)+`","host":"h","pid":1,"operation":"op","taken":"2026-01-01T00:00:00Z"}`), 0o600)

	var runs []terminalRun
	for _, o := range [][]string{{}, {"-o", "table"}, {"-o", "json"}, {"-o", "yaml"}, {"-o", "csv"}, {"-o", "ndjson"},
		{"--jq", "..|strings"}, {"--template", "{{printf \"%v\" .}}"}} {
		runs = append(runs,
			terminalRun{append([]string{"element", "list"}, o...), true},
			terminalRun{append([]string{"element", "list", "--all"}, o...), true},
			terminalRun{append([]string{"element", "org", "list", "P-1"}, o...), true},
			terminalRun{append([]string{"element", "view", "P-1", "P-\u200b1"}, o...), true},
			terminalRun{append([]string{"element", "list", "--all", "--code", "P-*", "--active"}, o...), true},
			// Errors: the platform's problem, as text or as JSON.
			terminalRun{append([]string{"element", "update", "HOSTILE", "--description", "x"}, o...), true},
			terminalRun{append([]string{"api", "/v1/wbs-elements"}, o...), true},
		)
	}
	for _, o := range []string{"table", "json", "yaml"} {
		runs = append(runs,
			terminalRun{[]string{"apply", "-f", file, "--allow-invisible-codes", "--dry-run", "-o", o}, true},
			terminalRun{[]string{"apply", "-f", bad, "-o", o}, true},
			terminalRun{[]string{"element", "create", "HOSTILE", "-o", o}, true},
			terminalRun{[]string{"element", "delete", "HOSTILE", "-o", o}, true},
			terminalRun{[]string{"element", "org", "remove", "HOSTILE", "company=1000", "-o", o}, true},
			terminalRun{[]string{"flow", "execute", "7", "--data", "{}", "-o", o}, true},
			terminalRun{[]string{"auth", "status", "-o", o}, false},
			terminalRun{[]string{"schema", "-o", o}, false},
			terminalRun{[]string{"state", "show", state, "-o", o}, true},
		)
	}
	for _, o := range []string{"csv", "json", "yaml", "ndjson"} {
		// export leaves out, and names, elements whose description
		// holds a control character (apply would refuse them): the
		// names are checked, and show no data.
		runs = append(runs, terminalRun{[]string{"export", "--format", o}, false})
	}
	runs = append(runs,
		terminalRun{[]string{"flow", "execute", "7", "--data", "{}"}, true},
		terminalRun{[]string{"map", "init", "-f", export}, true},
		terminalRun{[]string{"map", "check", "-f", export, "--map", wbsmap}, true},
		terminalRun{[]string{"map", "check", "-f", export, "--map", wbsmap, "-o", "json"}, true},
		terminalRun{[]string{"apply", "-f", badCSV}, true},
		terminalRun{[]string{"apply", "-f", file, "--allow-invisible-codes", "--dry-run", "--out", plan}, true},
		terminalRun{[]string{"apply", "--plan", plan, "--dry-run"}, true},
		terminalRun{[]string{"apply", "-f", file, "--allow-invisible-codes", "--report", filepath.Join(dir, "r.ndjson")}, false},
		terminalRun{[]string{"api", "/v1/raw"}, true},
		terminalRun{[]string{"api", "-i", "/v1/raw"}, true},
		terminalRun{[]string{"api", "/v1/problem"}, true},
		terminalRun{[]string{"api", "/v1/problem", "-o", "json"}, true},
		terminalRun{[]string{"api", "/v1/wbs-elements", "--paginate"}, true},
		terminalRun{[]string{"element", "list", "--debug"}, true},
		// A code not found is named in the error.
		terminalRun{[]string{"element", "get", "P-1", hostile}, true},
		terminalRun{[]string{"element", "get", hostile, "-o", "json"}, true},
		terminalRun{[]string{"element", "update", "P-1", "--description", "y"}, false},
		terminalRun{[]string{"auth", "token"}, false},
		terminalRun{[]string{"version"}, false},
		terminalRun{[]string{"state", "unlock", state, "3f9c2a7d41e0b865"}, false},
		terminalRun{[]string{"state", "pull", state, filepath.Join(dir, "pulled.state")}, true},
		terminalRun{[]string{"state", "push", state, filepath.Join(dir, "pushed.state")}, true},
		terminalRun{[]string{"completion", "bash"}, false},
		terminalRun{[]string{"completion", "zsh"}, false},
		terminalRun{[]string{"completion", "fish"}, false},
		terminalRun{[]string{"completion", "powershell"}, false},
		terminalRun{[]string{"help", "element"}, false},
		terminalRun{[]string{"elemnt"}, false},
	)
	// Commands no run above reaches, and why.
	notRun := map[string]string{
		"wbsctl auth login":  "asks for the secret and writes the OS keyring",
		"wbsctl auth logout": "writes the OS keyring",
		"wbsctl serve":       "runs until stopped, and prints only its own address and credential",
	}
	checkEveryCommandIsRun(t, runs, notRun)

	env := append(os.Environ(), runAsWbsctl+"=1", "NO_COLOR=1", "WBSCTL_BASE_URL="+srv.URL,
		"WBSCTL_CLIENT_ID="+srv.ClientID, "WBSCTL_CLIENT_SECRET="+srv.ClientSecret,
		"XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "HOME="+t.TempDir())
	for _, r := range runs {
		out := onTerminal(t, env, r.args)
		if raw := rawOnTerminal(out); raw != "" {
			t.Errorf("wbsctl %s: %s", strings.Join(r.args, " "), raw)
		}
		if r.shows && !bytes.Contains(out, []byte("Zq")) {
			t.Errorf("wbsctl %s showed none of the data: %q", strings.Join(r.args, " "), out)
		}
	}
}

// onTerminal runs wbsctl with args on a pseudo-terminal that is its
// stdin, stdout and stderr, and returns what it wrote there.
func onTerminal(t *testing.T, env, args []string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = env
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 60, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	done := make(chan []byte)
	go func() {
		var b bytes.Buffer
		_, err := io.Copy(&b, tty)
		if err != nil && !errors.Is(err, syscall.EIO) && !errors.Is(err, os.ErrClosed) {
			t.Errorf("reading the terminal: %v", err)
		}
		done <- b.Bytes()
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("wbsctl %s did not end", strings.Join(args, " "))
	}
	select {
	case out := <-done:
		return out
	case <-time.After(10 * time.Second):
		tty.Close()
		return <-done
	}
}

// checkEveryCommandIsRun fails the test for a runnable command that no
// run reaches and notRun does not name.
func checkEveryCommandIsRun(t *testing.T, runs []terminalRun, notRun map[string]string) {
	t.Helper()
	io, _, _, _ := iostreams.Test()
	reached := map[string]bool{}
	cmd := root.NewCmdRoot(cmdutil.New(io))
	for _, r := range runs {
		if c, _, err := cmd.Find(r.args); err == nil {
			reached[c.CommandPath()] = true
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Runnable() && !c.HasSubCommands() && !reached[c.CommandPath()] && notRun[c.CommandPath()] == "" {
			t.Errorf("%s is not run on a terminal by this test", c.CommandPath())
		}
	}
	walk(cmd)
}

// hostileFront answers for a platform whose every text is hostile: the
// problems of an element HOSTILE, a flow's answer, a body that is not
// UTF-8, and a problem at /v1/problem.
func hostileFront(w http.ResponseWriter, r *http.Request) bool {
	problem := func() {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"about:blank","title":"%s","status":400,"detail":"%s","instance":"%s","errors":[{"field":"%s","message":"%s"}]}`,
			jsonText(hostile), jsonText(hostile), jsonText(hostile), jsonText(hostile), jsonText(hostile))
	}
	switch {
	case strings.Contains(r.URL.Path, "HOSTILE"), r.Method == http.MethodPost && r.URL.Path == "/v1/wbs-elements",
		r.URL.Path == "/v1/problem":
		if r.Method == http.MethodPost && r.URL.Path == "/v1/wbs-elements" && !strings.Contains(readBody(r), "HOSTILE") {
			return false
		}
		problem()
	case strings.HasSuffix(r.URL.Path, "/execute"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"result":"%s","list":["%s"]}`, jsonText(hostile), jsonText(hostile))
	case r.URL.Path == "/v1/raw":
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Note", "Zq\u009b\u202e")
		w.Write([]byte(hostile + " \x9b\xff\xfe lone bytes\n"))
	default:
		return false
	}
	return true
}

func readBody(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}

// jsonText is s as the inside of a JSON string.
func jsonText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r >= 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wbsctl's own text is never escaped, only data is: the list of close
// commands is a list, on a terminal and on a pipe.
func TestOwnTextIsNotEscaped(t *testing.T) {
	srv := wbstest.Start(t)
	for _, tty := range []bool{true, false} {
		res := cmdtest.Run{TTY: tty}.Do(t, srv, "elemnt")
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.ErrOut, "Did you mean this?\n\telement\n") {
			t.Errorf("terminal %v: exit %d: %q", tty, res.Code, res.ErrOut)
		}
	}
}
