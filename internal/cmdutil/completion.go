package cmdutil

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wbsctl/wbsctl/sdk"
)

// CompleteCodes completes element codes from the first pages of the list,
// quickly: completion must not hang a shell.
func (f *Factory) CompleteCodes(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	c, err := f.Client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
	defer cancel()
	var codes []string
	for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 100}) {
		if err != nil || len(codes) >= 1000 {
			break
		}
		if strings.HasPrefix(el.Code, prefix) {
			codes = append(codes, el.Code)
		}
	}
	return codes, cobra.ShellCompDirectiveNoFileComp
}
