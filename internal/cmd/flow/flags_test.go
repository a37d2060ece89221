package flow

import (
	"testing"

	"github.com/wbsctl/wbsctl/internal/cmd/flagtest"
)

func TestExecuteFlags(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		refused      bool
		flowID, data string
	}{
		{nil, false, "", ""},
		{[]string{"1234", "--data", "@input.json"}, false, "1234", "@input.json"},
		{[]string{"--data", "-"}, false, "", "-"},
		{[]string{"1234", "5678"}, true, "", ""},
	} {
		got, streams, err := flagtest.Parse(NewCmdExecute, tc.args...)
		switch {
		case tc.refused && !flagtest.Refused(got, err):
			t.Errorf("%v: %v, ran %v; want the command line refused", tc.args, err, got != nil)
		case !tc.refused && (err != nil || got.FlowID != tc.flowID || got.Data != tc.data || got.Client == nil || got.IO != streams):
			t.Errorf("%v: %v, options %+v", tc.args, err, got)
		}
	}
}
