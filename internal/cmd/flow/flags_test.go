package flow

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmdutil"
	"github.com/wbsctl/wbsctl/internal/iostreams"
)

func TestExecuteFlags(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		usage        bool
		flowID, data string
	}{
		{nil, false, "", ""},
		{[]string{"1234", "--data", "@input.json"}, false, "1234", "@input.json"},
		{[]string{"--data", "-"}, false, "", "-"},
		{[]string{"1234", "5678"}, true, "", ""},
	} {
		streams, _, _, _ := iostreams.Test()
		var got *ExecuteOptions
		cmd := NewCmdExecute(cmdutil.New(streams), func(_ context.Context, o *ExecuteOptions) error { got = o; return nil })
		cmd.SetArgs(tc.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		var usage *cmdutil.UsageError
		if tc.usage {
			if !errors.As(err, &usage) || got != nil {
				t.Errorf("%v: %v, ran %v; want a usage error", tc.args, err, got != nil)
			}
			continue
		}
		if err != nil || got.FlowID != tc.flowID || got.Data != tc.data || got.Client == nil || got.IO != streams {
			t.Errorf("%v: %v, options %+v", tc.args, err, got)
		}
	}
}
