// Package flow holds `wbsctl flow execute`: the integration execution call.
package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/sdk"
)

// NewCmdFlow returns `wbsctl flow`.
func NewCmdFlow(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "flow <command>", Short: "Run integration flows"}
	cmd.AddCommand(NewCmdExecute(f, nil))
	return cmd
}

// ExecuteOptions are the inputs of `flow execute`.
type ExecuteOptions struct {
	cmdutil.Deps
	FlowID string
	Data   string
}

// NewCmdExecute returns `wbsctl flow execute`.
func NewCmdExecute(f *cmdutil.Factory, runF func(context.Context, *ExecuteOptions) error) *cobra.Command {
	opts := &ExecuteOptions{Deps: f.Deps()}
	cmd := &cobra.Command{
		Use:   "execute [FLOW_ID]",
		Short: "Run an integration flow with a JSON input",
		Long: `Run an integration flow. FLOW_ID defaults to the one in the client id
(integrationhub-{flowId}); a token runs only its own integration.`,
		Example: `  wbsctl flow execute --data @input.json
  echo '{"orderId": 7}' | wbsctl flow execute 1234 --data -`,
		Args: cmdutil.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.FlowID = args[0]
			}
			return cmdutil.Pick(runF, runExecute)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Data, "data", "", "JSON input: @FILE, - for stdin, or the JSON itself")
	return f.AddOutputFlags(cmd, cmdutil.RowFormats...)
}

func runExecute(ctx context.Context, o *ExecuteOptions) error {
	body, err := readData(o)
	if err != nil {
		return err
	}
	c, err := o.Client()
	if err != nil {
		return err
	}
	flowID := o.FlowID
	if flowID == "" {
		if flowID, err = sdk.FlowIDFromClientID(c.ClientID()); err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("give FLOW_ID: %w", err)}
		}
	}
	out, err := c.Flows.Execute(ctx, flowID, body)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return err
	}
	p, err := o.Printer()
	if err != nil {
		return err
	}
	if !o.Mode().Structured() {
		_, err := fmt.Fprintln(cmdutil.DataOut(o.IO), string(out))
		return err
	}
	return p.Single(v)
}

func readData(o *ExecuteOptions) (json.RawMessage, error) {
	var raw []byte
	var err error
	switch {
	case o.Data == "":
		return nil, nil
	case o.Data == "-":
		raw, err = cmdutil.ReadFileOrStdin(o.IO.In, "-", 16<<20)
	case strings.HasPrefix(o.Data, "@"):
		raw, err = cmdutil.ReadFileOrStdin(o.IO.In, o.Data[1:], 16<<20)
	default:
		raw = []byte(o.Data)
	}
	if err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--data: %w", err)}
	}
	if !json.Valid(raw) {
		return nil, &cmdutil.UsageError{Err: errors.New("--data: not valid JSON")}
	}
	return raw, nil
}
