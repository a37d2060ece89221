package docscheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wbsctl/wbsctl/internal/cmd/root"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

// repo is the root of the repository, from this package's folder.
const repo = "../../.."

// deprecatedByCode are the flags a command deprecates in its own code,
// with a warning when it runs, where cobra's Deprecated cannot say it:
// -o is every command's, and only export's use of it is deprecated.
// TestDeprecatedByCodeStillWarns runs each and fails when the warning is
// gone, so that the list stays what the tool does.
var deprecatedByCode = []struct {
	path string // the command, as its CommandPath
	flag string // the flag's name
	args []string
}{
	{"wbsctl export", "output", []string{"export", "-o", "csv"}},
}

// otherPrograms are programs the pages name in code spans with flags of
// their own: a span of flags after one of them is not wbsctl's.
var otherPrograms = []string{"go", "gofmt", "curl", "git", "gh", "jq", "openssl", "ssh", "sha256sum", "tar", "iconv",
	"gitlab-ci-local", "actionlint", "goreleaser", "secret-tool", "dbus-run-session", "gnome-keyring-daemon",
	"dpkg", "rpm", "sudo", "man", "soffice", "versitygw", "docker", "kill", "sleep", "mkdir", "export", "env"}

// A mention is a flag named next to the command it belongs to, where the
// page can tell.
type mention struct {
	file string
	line int
	// path is the command's words after wbsctl ("element list"), and
	// explicit says the flag was named with it, in one code span or one
	// command of a block; otherwise path is the command the paragraph
	// named last, or none.
	path     []string
	explicit bool
	flag     string // the name without dashes, or a shorthand letter
	short    bool
	// says is the paragraph (a list item, a table row) it is in.
	says string
}

func (m mention) String() string {
	name := "--" + m.flag
	if m.short {
		name = "-" + m.flag
	}
	return fmt.Sprintf("%s:%d: %s", m.file, m.line, strings.TrimSpace("wbsctl "+strings.Join(m.path, " ")+" "+name))
}

// TestDocumentedFlagsExist: every --flag (and -x) that the pages and the
// newest sections of CHANGELOG.md name is a flag of the command they name
// it with, inherited ones included, and not deprecated, by cobra's
// Deprecated or by the command's own warning (deprecatedByCode). A flag
// named alone in prose belongs to the command its paragraph named last
// when that command has it, else to any command that has it. A paragraph
// may name a deprecated flag when it says "deprecated".
func TestDocumentedFlagsExist(t *testing.T) {
	cmd := newRoot()
	mentions := collect(t)
	if len(mentions) < 200 {
		t.Fatalf("only %d flags found in the pages: the reader of the pages is broken", len(mentions))
	}
	for _, m := range mentions {
		if problem := check(cmd, m); problem != "" {
			t.Errorf("%s: %s", m, problem)
		}
	}
}

func TestDeprecatedByCodeStillWarns(t *testing.T) {
	for _, d := range deprecatedByCode {
		streams, _, _, errOut := iostreams.Test()
		f := cmdutil.New(streams)
		dir := t.TempDir()
		vars := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_CACHE_HOME": filepath.Join(dir, "cache")}
		f.Getenv = func(k string) string { return vars[k] }
		// No credentials: the command warns, then stops before any request.
		root.Run(context.Background(), f, d.args)
		if !strings.Contains(errOut.String(), "deprecated") {
			t.Errorf("wbsctl %s no longer says that %s is deprecated: take it out of deprecatedByCode. It said: %s",
				strings.Join(d.args, " "), d.flag, errOut)
		}
	}
}

// The reader of the pages, on lines whose answer is known.
func TestCollectReadsSpansAndBlocks(t *testing.T) {
	page := "Intro `wbsctl apply -f X --dry-run` and `--refresh`; `-o json`.\n" +
		"`go test -run X` and `-count`; `scripts/doc-blocks --alone`, `--after-readme`\n\n" +
		"- `export --format xlsx` (`--bom`)\n" +
		"```sh\n" +
		"wbsctl --ca-file ca.pem element list --all | jq -r '.[] --x' # --comment\n" +
		"WBSCTL_X=1 \"$bin\"/wbsctl state \\\n  show --lock-timeout 1m\n" +
		"go build -o x ./cmd/wbsctl\n" +
		"```\n"
	var got []string
	for _, m := range read("p.md", page) {
		got = append(got, fmt.Sprintf("%d %s %v %s", m.line, strings.Join(m.path, "/"), m.explicit, m.flag))
	}
	want := []string{
		"1 apply true f", "1 apply true dry-run", "1 apply false refresh", "1 apply false o",
		"4 export true format", "4 export false bom",
		"6 element/list true ca-file", "6 element/list true all",
		"7 state/show true lock-timeout",
	}
	if !slices.Equal(got, want) {
		t.Errorf("read:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func newRoot() *cobra.Command {
	streams, _, _, _ := iostreams.Test()
	cmd := root.NewCmdRoot(cmdutil.New(streams))
	// The flags cobra adds when a command runs.
	var init func(c *cobra.Command)
	init = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.InitDefaultVersionFlag()
		for _, sub := range c.Commands() {
			init(sub)
		}
	}
	init(cmd)
	return cmd
}

// collect reads the pages: README.md, docs/*.md but the generated
// docs/cli, and CHANGELOG.md's newest sections (Unreleased and the last
// release).
func collect(t *testing.T) []mention {
	t.Helper()
	pages, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	pages = append(pages, filepath.Join(repo, "README.md"))
	var out []mention
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, read(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), string(b))...)
	}
	b, err := os.ReadFile(filepath.Join(repo, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, read("CHANGELOG.md", newestSections(string(b)))...)
	for i := range out {
		out[i].file = strings.TrimPrefix(out[i].file, "../")
	}
	return out
}

// newestSections is the changelog up to its second release heading: the
// unreleased changes and the last release. Older sections name the flags
// of their day.
func newestSections(s string) string {
	lines := strings.SplitAfter(s, "\n")
	releases := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			if releases++; releases == 3 {
				return strings.Join(lines[:i], "")
			}
		}
	}
	return s
}

var (
	fence = regexp.MustCompile("^\\s*```+\\s*([A-Za-z0-9_-]*)")
	// A paragraph starts at a list item, a table row or a heading.
	itemStart = regexp.MustCompile(`^\s*([-*+]|\d+\.|\|)\s|^#`)
	span      = regexp.MustCompile("`([^`]+)`")
	longFlag  = regexp.MustCompile(`^--([a-z][a-z0-9-]*)(=.*)?$`)
	shortFlag = regexp.MustCompile(`^-([A-Za-z])$`)
)

// read finds the flags of a Markdown page, in code spans of its prose and
// in its fenced blocks but Go's.
func read(file, page string) []mention {
	var out []mention
	lines := strings.Split(page, "\n")
	var para []string // the lines of the paragraph being read
	paraStart := 0
	flush := func() {
		if len(para) > 0 {
			out = append(out, readParagraph(file, paraStart, para)...)
		}
		para = nil
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := fence.FindStringSubmatch(l); m != nil {
			flush()
			lang := m[1]
			var block []string
			start := i + 1
			for i++; i < len(lines) && !fence.MatchString(lines[i]); i++ {
				block = append(block, lines[i])
			}
			if lang != "go" {
				out = append(out, readBlock(file, start+1, block)...)
			}
			continue
		}
		if strings.TrimSpace(l) == "" || itemStart.MatchString(l) {
			flush()
		}
		if strings.TrimSpace(l) != "" {
			if len(para) == 0 {
				paraStart = i + 1
			}
			para = append(para, l)
		}
	}
	flush()
	return out
}

// readParagraph reads the code spans of a paragraph in order: a span that
// starts with wbsctl or one of its commands names the command of its
// flags, and is the paragraph's command from there on; a span of flags
// alone is of the paragraph's command, or of the program a span named
// last (go, curl …), whose flags are not wbsctl's.
func readParagraph(file string, start int, lines []string) []mention {
	text := strings.Join(lines, "\n")
	says := strings.Join(strings.Fields(text), " ")
	var out []mention
	var context []string // the paragraph's command, nil for none
	other := false       // the paragraph's last program is not wbsctl
	for _, loc := range span.FindAllStringSubmatchIndex(text, -1) {
		line := start + strings.Count(text[:loc[0]], "\n")
		words := tokens(strings.ReplaceAll(text[loc[2]:loc[3]], "\n", " "))
		for _, seg := range words {
			if len(seg) == 0 {
				continue
			}
			first := seg[0].text
			switch {
			case isWbsctl(first):
				path, flags := walk(seg[1:])
				context, other = path, false
				out = append(out, mentions(file, line, path, true, flags, says)...)
			case !seg[0].quoted && isCommand(first):
				path, flags := walk(seg)
				context, other = path, false
				out = append(out, mentions(file, line, path, true, flags, says)...)
			case slices.Contains(otherPrograms, first) || strings.Contains(first, "/"):
				other = true // go …, or a script: scripts/bench
			case strings.HasPrefix(first, "-") && !other:
				_, flags := walk(seg)
				out = append(out, mentions(file, line, context, false, flags, says)...)
			}
		}
	}
	return out
}

// readBlock reads the commands of a fenced block: every command that runs
// wbsctl, after env assignments, `$ `, `run:` or a list's `- `.
func readBlock(file string, start int, lines []string) []mention {
	var out []mention
	for i := 0; i < len(lines); i++ {
		line, first := lines[i], i
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i]
		}
		says := strings.Join(strings.Fields(line), " ")
		for _, seg := range tokens(line) {
			for j, w := range seg {
				if isWbsctl(w.text) {
					path, flags := walk(seg[j+1:])
					out = append(out, mentions(file, start+first, path, true, flags, says)...)
					break
				}
				if !prefix(w) {
					break
				}
			}
		}
	}
	return out
}

// prefix tells a word that may stand before the program of a command.
func prefix(w word) bool {
	if w.quoted {
		return false
	}
	switch w.text {
	case "$", "-", "run:", "script:", "exec", "time", "!", "if", "then", "else", "do", "while", "until", "{", "command", "sudo", "env":
		return true
	}
	return assignment.MatchString(w.text)
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isWbsctl(w string) bool {
	return w == "wbsctl" || strings.HasSuffix(w, "/wbsctl") || w == "wbsctl.exe"
}

// topCommands are wbsctl's commands, which a span may name without
// "wbsctl" (`apply --plan`).
var topCommands = func() []string {
	var names []string
	for _, c := range newRoot().Commands() {
		names = append(names, c.Name())
		names = append(names, c.Aliases...)
	}
	return names
}()

func isCommand(w string) bool { return slices.Contains(topCommands, w) }

type flagWord struct {
	name  string
	short bool
}

// walk reads the words after wbsctl: the command's path, as far as the
// words name commands, and its flags, to the end of its flags (a bare --).
func walk(words []word) (path []string, flags []flagWord) {
	cmd := newRootCached()
	descending := true
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.text == "--" && !w.quoted {
			break
		}
		if !w.quoted {
			if m := longFlag.FindStringSubmatch(w.text); m != nil {
				flags = append(flags, flagWord{name: m[1]})
				if f := lookup(cmd, m[1], false); f != nil && f.Value.Type() != "bool" && m[2] == "" && f.NoOptDefVal == "" {
					i++ // its value
				}
				continue
			}
			if m := shortFlag.FindStringSubmatch(w.text); m != nil {
				flags = append(flags, flagWord{name: m[1], short: true})
				if f := lookup(cmd, m[1], true); f != nil && f.Value.Type() != "bool" && f.NoOptDefVal == "" {
					i++
				}
				continue
			}
		}
		if descending && !w.quoted {
			if sub := child(cmd, w.text); sub != nil {
				cmd = sub
				path = append(path, sub.Name())
				continue
			}
		}
		descending = false
	}
	return path, flags
}

var cachedRoot *cobra.Command

func newRootCached() *cobra.Command {
	if cachedRoot == nil {
		cachedRoot = newRoot()
	}
	return cachedRoot
}

func child(c *cobra.Command, name string) *cobra.Command {
	for _, sub := range c.Commands() {
		if sub.Name() == name || slices.Contains(sub.Aliases, name) {
			return sub
		}
	}
	return nil
}

// lookup finds a flag of c, its own or inherited.
func lookup(c *cobra.Command, name string, short bool) *pflag.Flag {
	for _, set := range []*pflag.FlagSet{c.Flags(), c.InheritedFlags()} {
		var f *pflag.Flag
		if short {
			f = set.ShorthandLookup(name)
		} else {
			f = set.Lookup(name)
		}
		if f != nil {
			return f
		}
	}
	return nil
}

func mentions(file string, line int, path []string, explicit bool, flags []flagWord, says string) []mention {
	var out []mention
	for _, f := range flags {
		out = append(out, mention{file: file, line: line, path: path, explicit: explicit, flag: f.name, short: f.short, says: says})
	}
	return out
}

// check says what is wrong with a mention, or "".
func check(rootCmd *cobra.Command, m mention) string {
	cmd := rootCmd
	for _, name := range m.path {
		cmd = child(cmd, name)
	}
	f := lookup(cmd, m.flag, m.short)
	if f == nil && !m.explicit {
		// Named alone: any command's flag will do.
		cmd, f = anyWith(rootCmd, m.flag, m.short)
	}
	switch {
	case f == nil && m.explicit:
		return fmt.Sprintf("%q has no such flag", cmd.CommandPath())
	case f == nil:
		return "no command has such a flag"
	}
	if strings.Contains(m.says, "deprecated") {
		return ""
	}
	switch {
	case cmd.Deprecated != "":
		return fmt.Sprintf("%q is deprecated: %s", cmd.CommandPath(), cmd.Deprecated)
	case f.Deprecated != "":
		return fmt.Sprintf("the flag is deprecated: %s", f.Deprecated)
	case m.short && f.ShorthandDeprecated != "":
		return fmt.Sprintf("the shorthand is deprecated: %s", f.ShorthandDeprecated)
	}
	for _, d := range deprecatedByCode {
		if m.explicit && cmd.CommandPath() == d.path && f.Name == d.flag {
			return fmt.Sprintf("%q warns that %s is deprecated (wbsctl %s)", d.path, d.flag, strings.Join(d.args, " "))
		}
	}
	return ""
}

// anyWith finds a command of the tree with the flag, in the tree's order.
func anyWith(c *cobra.Command, name string, short bool) (*cobra.Command, *pflag.Flag) {
	if f := lookup(c, name, short); f != nil {
		return c, f
	}
	for _, sub := range c.Commands() {
		if found, f := anyWith(sub, name, short); f != nil {
			return found, f
		}
	}
	return c, nil
}

// A word of a command line, and whether it was quoted.
type word struct {
	text   string
	quoted bool
}

// tokens splits a line of shell into its commands (at |, ;, &, (, ), and
// $( ), and each into words, as far as the pages need: quotes make one
// word, a # at a word's start comments out the rest.
func tokens(line string) [][]word {
	var cmds [][]word
	var cur []word
	var w strings.Builder
	inWord, quoted := false, false
	endWord := func() {
		if inWord {
			cur = append(cur, word{text: w.String(), quoted: quoted})
		}
		w.Reset()
		inWord, quoted = false, false
	}
	endCmd := func() {
		endWord()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				j = len(line) - i - 1
			}
			w.WriteString(line[i+1 : i+1+j])
			quoted = quoted || !inWord // a word that starts with a quote
			inWord = true
			i += j + 1
		case c == ' ' || c == '\t':
			endWord()
		case c == '#' && !inWord:
			endCmd()
			return cmds
		case c == '|' || c == ';' || c == '&' || c == '(' || c == ')' || c == '`':
			endCmd()
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			endCmd()
			i++
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	endCmd()
	return cmds
}

// What check finds wrong, on mentions whose answer is known.
func TestCheckTellsWhatIsWrong(t *testing.T) {
	cmd := newRoot()
	for _, c := range []struct {
		page string
		bad  bool
	}{
		{"`wbsctl apply --dry-run`", false},
		{"`apply --nosuch`", true},
		{"`wbsctl apply` and `--nosuch`", true},
		{"`export --format xlsx` and `--sheet`", false}, // apply's
		{"`wbsctl --ca-file F element list -o json`", false},
		{"`element list --sheet`", true},
		{"`export -o xlsx`", true},
		{"`export --output xlsx`", true},
		{"`export -o xlsx` is deprecated", false},
		{"`auth status --json`", false},
		{"`-o json`", false},
		{"`wbsctl element view P-1 -q`", false},
		{"`wbsctl --help`", false},
	} {
		var problems []string
		for _, m := range read("p.md", c.page) {
			if p := check(cmd, m); p != "" {
				problems = append(problems, m.String()+": "+p)
			}
		}
		if bad := len(problems) > 0; bad != c.bad {
			t.Errorf("%s: problems %q, want some: %v", c.page, problems, c.bad)
		}
	}
}
