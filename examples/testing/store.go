// Package testing shows how to test code of your own that uses the SDK
// with wbstest: see store_test.go.
package testing

import (
	"context"

	"github.com/wbsctl/wbsctl/sdk"
)

// Deactivate marks every active element whose code starts with prefix as
// inactive and returns how many it changed: the kind of code a user
// writes on top of the SDK.
func Deactivate(ctx context.Context, c *sdk.Client, prefix string) (int, error) {
	var codes []string
	for el, err := range c.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 100}) {
		if err != nil {
			return 0, err
		}
		if el.IsActive && len(el.Code) >= len(prefix) && el.Code[:len(prefix)] == prefix {
			codes = append(codes, el.Code)
		}
	}
	for _, code := range codes {
		if _, err := c.WBSElements.Update(ctx, code, &sdk.UpdateWBSElementRequest{IsActive: sdk.Set(false)}); err != nil {
			return 0, err
		}
	}
	return len(codes), nil
}
