package root

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func TestVersionHelpAndUsageCodes(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"version"}, cmdutil.ExitOK, "wbsctl (devel) (commit none, built unknown)\n"},
		{[]string{"help", "exit-codes"}, cmdutil.ExitOK, "7  changes pending"},
		{[]string{"version", "extra"}, cmdutil.ExitUsage, ""},
		{[]string{"serve", "--no-such-flag"}, cmdutil.ExitUsage, ""},
		{[]string{"no-such-command"}, cmdutil.ExitUsage, ""},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--org-update", "never"}, cmdutil.ExitUsage, ""},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--fault", "kind=none"}, cmdutil.ExitUsage, ""},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--credential", "no-secret"}, cmdutil.ExitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			io, _, out, _ := iostreams.Test()
			f := cmdutil.New(io)
			if got := Run(context.Background(), f, tt.args); got != tt.code {
				t.Fatalf("exit code %d, want %d", got, tt.code)
			}
			if tt.out != "" && !strings.Contains(out.String(), tt.out) {
				t.Fatalf("output %q, want %q", out.String(), tt.out)
			}
		})
	}
}

// Every command that has subcommands, those added later included, answers
// an unknown word with a usage error naming it and suggesting a close
// subcommand, and prints its help when given nothing.
func TestEveryParentCommandRefusesUnknownSubcommands(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	var parents [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			p := append(append([]string(nil), path...), sub.Name())
			if sub.HasSubCommands() {
				parents = append(parents, p)
			}
			walk(sub, p)
		}
	}
	walk(NewCmdRoot(cmdutil.New(io)), nil)
	if len(parents) < 4 {
		t.Fatalf("found only %v", parents)
	}
	run := func(args ...string) (int, string, string) {
		io, _, out, errOut := iostreams.Test()
		code := Run(context.Background(), cmdutil.New(io), args)
		return code, out.String(), errOut.String()
	}
	for _, p := range parents {
		name := "wbsctl " + strings.Join(p, " ")
		t.Run(name, func(t *testing.T) {
			code, _, errOut := run(append(p, "frobnicate")...)
			if code != cmdutil.ExitUsage || !strings.Contains(errOut, fmt.Sprintf("unknown command %q for %q", "frobnicate", name)) {
				t.Errorf("%s frobnicate: exit %d: %s", name, code, errOut)
			}
			var first string
			for _, sub := range NewCmdRootAt(t, p).Commands() {
				if sub.IsAvailableCommand() && len(sub.Name()) > 3 {
					first = sub.Name()
					break
				}
			}
			if first != "" {
				typo := first[:1] + first[2:3] + first[1:2] + first[3:] // swap two letters
				code, _, errOut = run(append(p, typo, "x")...)
				if code != cmdutil.ExitUsage || !strings.Contains(errOut, "Did you mean this?") || !strings.Contains(errOut, first) {
					t.Errorf("%s %s: exit %d: %s", name, typo, code, errOut)
				}
			}
			if code, out, _ := run(p...); code != cmdutil.ExitOK || !strings.Contains(out, "Available Commands") {
				t.Errorf("%s alone: exit %d: %s", name, code, out)
			}
		})
	}
}

// NewCmdRootAt returns the command at path in a new tree.
func NewCmdRootAt(t *testing.T, path []string) *cobra.Command {
	io, _, _, _ := iostreams.Test()
	c, _, err := NewCmdRoot(cmdutil.New(io)).Find(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"help", "nosuch"}, {"help", "element", "nosuch"}, {"apply"}, {"element", "craete", "A-1"},
	} {
		io, _, _, errOut := iostreams.Test()
		if code := Run(context.Background(), cmdutil.New(io), args); code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, cmdutil.ExitUsage, errOut)
		}
	}
}

// Every flag of every command shows its value as one word in capitals or
// a type name: pflag takes back-quoted words of a usage for the value.
func TestEveryFlagPlaceholderIsOneWord(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	types := map[string]bool{"string": true, "int": true, "int64": true, "duration": true, "stringArray": true, "strings": true, "float": true, "uint": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if name != "" && !types[name] && strings.ToUpper(name) != name || strings.Contains(name, " ") {
				t.Errorf("%s --%s shows its value as %q", c.CommandPath(), f.Name, name)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.InheritedFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(cmdutil.New(io)))
}

func TestHelpTopicsAlignWithCommands(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	Run(context.Background(), cmdutil.New(io), []string{"--help"})
	var col = -1
	for _, line := range strings.Split(out.String(), "\n") {
		for _, name := range []string{"  apply ", "  exit-codes "} {
			if strings.HasPrefix(line, name) {
				c := len(line) - len(strings.TrimLeft(line[len(name):], " "))
				if col >= 0 && c != col {
					t.Fatalf("help topics and commands in different columns:\n%s", out.String())
				}
				col = c
			}
		}
	}
	if col < 0 {
		t.Fatalf("no apply or exit-codes line:\n%s", out.String())
	}
}
