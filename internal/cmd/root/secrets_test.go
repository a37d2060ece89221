package root

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

// No flag of any command takes a secret or a token as its value: what is
// on a command line is in the process list and the shell's history.
func TestNoFlagTakesASecret(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	secretish := regexp.MustCompile(`(?i)secret|token|password|credential|key`)
	// serve --credential ID=SECRET sets the reference server's own
	// made-up credential, not one of the platform; --tls-key and
	// --client-key are the paths of key files.
	allowed := map[string]bool{"serve --credential": true, "serve --tls-key": true, "serve --token-lifetime": true, "--client-key": true}
	var walk func(*cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			seen++
			name := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "wbsctl"), " ") + " --" + f.Name
			name = strings.TrimPrefix(name, " ")
			if secretish.MatchString(f.Name) && f.Value.Type() != "bool" && !allowed[name] {
				t.Errorf("%s takes a %s: a secret must come from stdin, a prompt, the environment or the keyring", name, f.Value.Type())
			}
		}
		c.LocalFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(cmdutil.New(io)))
	if seen < 20 {
		t.Fatalf("only %d flags seen", seen)
	}
}
