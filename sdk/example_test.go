package sdk_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
)

func ExampleNewClient() {
	srv := wbstest.NewServer() // a real platform's URL and credential in production
	defer srv.Close()

	client, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	if err != nil {
		fmt.Println(err)
		return
	}
	ack, err := client.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{
		Code:                  "P-100.01",
		Description:           sdk.Ptr("Site preparation"),
		BusinessOrganizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}},
	})
	fmt.Println(err, ack.CorrelationID != "")
	// Output: <nil> true
}

func ExampleWBSElementsService_All() {
	srv := wbstest.NewServer()
	defer srv.Close()
	for _, code := range []string{"A", "B", "C", "D", "E"} {
		srv.Put(wbstest.Element{Code: code, IsActive: true})
	}
	client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))

	// Pages of two are fetched one at a time; breaking out stops fetching.
	for el, err := range client.WBSElements.All(context.Background(), &sdk.ListOptions{PageSize: 2}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(el.Code)
		if el.Code == "C" {
			break
		}
	}
	// Output:
	// A
	// B
	// C
}

func ExampleWBSElementsService_Update() {
	srv := wbstest.NewServer()
	defer srv.Close()
	srv.Put(wbstest.Element{Code: "P-1", Description: sdk.Ptr("old"), IsActive: true})
	client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))

	// Clear the description, deactivate, and leave the links as they are.
	_, err := client.WBSElements.Update(context.Background(), "P-1", &sdk.UpdateWBSElementRequest{
		Description: sdk.Null[string](),
		IsActive:    sdk.Set(false),
	})
	el, _ := srv.Element("P-1")
	fmt.Println(err, el.Description == nil, el.IsActive)
	// Output: <nil> true false
}

func ExampleAPIError() {
	srv := wbstest.NewServer()
	defer srv.Close()
	client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))

	_, err := client.WBSElements.Delete(context.Background(), "NO-SUCH")
	var apiErr *sdk.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, errors.Is(err, sdk.ErrNotFound), apiErr.Problem.Detail)
	}
	// Output: 404 true no WBS element with code "NO-SUCH"
}

func ExampleValidationError() {
	client, _ := sdk.NewClient("https://platform.invalid", sdk.WithAccessToken("unused"))
	_, err := client.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{
		Code:        "THIS-CODE-IS-LONGER-THAN-THIRTY-CHARACTERS",
		Description: sdk.Ptr(""),
	})
	fmt.Println(errors.Is(err, sdk.ErrValidation))
	fmt.Println(err)
	// Output:
	// true
	// create WBS element "THIS-CODE-IS-LONGER-THAN-THIRTY-CHARACTERS": invalid request: wbsElementCode: is 42 characters long (limit: 1 to 30 characters)
}

func ExampleWithTokenSource() {
	srv := wbstest.NewServer()
	defer srv.Close()
	// Any TokenSource will do: a secret store, an x/oauth2 source through
	// TokenSourceFunc, or, as here, a client that exchanges a credential.
	exchanging, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	client, _ := sdk.NewClient(srv.URL, sdk.WithTokenSource(sdk.TokenSourceFunc(func(ctx context.Context) (sdk.Token, error) {
		return exchanging.Token(ctx)
	})))

	_, err := client.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: "P-1"})
	fmt.Println(err)
	// Output: <nil>
}

func ExampleProblem_fieldErrors() {
	srv := wbstest.NewServer()
	defer srv.Close()
	srv.Put(wbstest.Element{Code: "P-1"})
	client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))

	_, err := client.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: "P-1"})
	var apiErr *sdk.APIError
	if errors.As(err, &apiErr) && apiErr.Problem != nil {
		for _, fe := range apiErr.Problem.FieldErrors {
			fmt.Println(fe.Field, "-", fe.Message)
		}
	}
	// Output: wbsElementCode - already exists
}

func ExampleWithRateLimit() {
	srv := wbstest.NewServer(wbstest.WithRateLimit(240))
	defer srv.Close()

	// The platform's documented 240 a minute, for every call of this
	// client and their retries together.
	client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithRateLimit(240))
	ack, err := client.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: "P-1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// What the platform said of its window, with every answer.
	fmt.Println(ack.Rate.Limit, ack.Rate.Remaining)
	// Output: 240 239
}
