package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"
)

// StateArg is how a command names a state to a person in a command to
// run: "" where WBSCTL_STATE gave it (the same variable gives it to the
// command printed), otherwise --state and the value, quoted for a shell;
// a value that names a user, which may carry a credential, as STATE.
func StateArg(state string, fromEnv bool) string {
	if fromEnv {
		return ""
	}
	if strings.Contains(state, "@") {
		return "STATE"
	}
	return "'" + strings.ReplaceAll(state, "'", `'\''`) + "'"
}

// StateFlag adds --state to cmd, whose value, where it is not given,
// WBSCTL_STATE gives: as apply takes it.
func StateFlag(cmd *cobra.Command, state *string) {
	cmd.Flags().StringVar(state, "state", "", "the state: a `FILE`, file:// or s3://BUCKET/KEY (also WBSCTL_STATE)")
}

// StateFromFlagOrEnv is the state of a command with StateFlag: the flag's,
// else WBSCTL_STATE's; fromEnv says which.
func StateFromFlagOrEnv(cmd *cobra.Command, f *Factory, state string) (value string, fromEnv bool) {
	if cmd.Flags().Changed("state") {
		return state, false
	}
	return f.Getenv("WBSCTL_STATE"), true
}
