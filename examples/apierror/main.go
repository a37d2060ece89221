// Apierror: telling errors apart with errors.Is and reading problem
// details from *sdk.APIError.
package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wbsctl/wbsctl/examples/internal/connect"
	"github.com/wbsctl/wbsctl/sdk"
)

func main() {
	ctx := context.Background()
	client, stop := connect.Client()
	defer stop()

	// Caught before sending: one error lists every broken limit.
	_, err := client.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: strings.Repeat("X", 31), Description: sdk.Ptr(strings.Repeat("d", 101))})
	var ve *sdk.ValidationError
	if errors.As(err, &ve) {
		for _, v := range ve.Violations {
			fmt.Printf("local check: %s %s (limit %s)\n", v.Field, v.Message, v.Limit)
		}
	}

	// Answered by the platform: problem details and a correlation id.
	_, err = client.WBSElements.Delete(ctx, "EX-NO-SUCH-ELEMENT")
	var apiErr *sdk.APIError
	switch {
	case errors.Is(err, sdk.ErrNotFound) && errors.As(err, &apiErr):
		fmt.Printf("not found: status %d, title %q, correlation id present: %v\n", apiErr.StatusCode, apiErr.Problem.Title, apiErr.CorrelationID != "")
	case err != nil:
		fmt.Println("unexpected:", err)
	}

	// A create whose outcome is unknown must be read back, not resent.
	if errors.Is(err, sdk.ErrOutcomeUnknown) {
		fmt.Println("read the element back before creating it again")
	}
}
