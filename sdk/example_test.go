package sdk_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/wbsctl/wbsctl/sdk"
	"github.com/wbsctl/wbsctl/sdk/wbstest"
	"golang.org/x/time/rate"
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

func ExampleWBSElementsService_AllPages_resume() {
	srv := wbstest.NewServer()
	defer srv.Close()
	for _, code := range []string{"A", "B", "C", "D", "E"} {
		srv.Put(wbstest.Element{Code: code, IsActive: true})
	}
	ctx := context.Background()
	client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))

	// Once a page is handled, save the cursor of the page after it.
	var saved sdk.Cursor // "" reads from the first page
	for page, err := range client.WBSElements.AllPages(ctx, &sdk.ListOptions{PageSize: 2}) {
		if err != nil {
			fmt.Println(err) // saved names the first page not handled
			return
		}
		for _, el := range page.Data {
			fmt.Println(el.Code)
		}
		saved, _ = page.NextCursor() // a string: to a file, a database, JSON
		if page.PageNumber == 2 {
			break // a failure, say
		}
	}

	// Later, maybe in another process: a client of the same base URL
	// reads on from the saved page, at the page size it was made with.
	client, _ = sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	for el, err := range client.WBSElements.All(ctx, &sdk.ListOptions{Cursor: saved}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("resumed", el.Code)
	}
	// Output:
	// A
	// B
	// C
	// D
	// resumed E
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

func ExampleWithLimiter() {
	srv := wbstest.NewServer(wbstest.WithRateLimit(240))
	defer srv.Close()

	// The platform's documented 240 a minute, for every call of this
	// client and their retries together, with a burst of one.
	pace := rate.NewLimiter(rate.Every(time.Minute/240), 1)
	client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret), sdk.WithLimiter(pace))
	ack, err := client.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: "P-1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// What the platform said of its window, with every answer.
	fmt.Println(ack.Rate.Limit, ack.Rate.Remaining)
	// Output: 240 239
}

// A create of a code that exists, or whose outcome is unknown, becomes an
// update; docs/testing.md shows the same lines.
func ExampleWBSElementsService_Create_createOrUpdate() {
	srv := wbstest.NewServer()
	defer srv.Close()
	srv.Put(wbstest.Element{Code: "P-1", Description: sdk.Ptr("old"), IsActive: false})
	c, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	ctx := context.Background()
	req := &sdk.CreateWBSElementRequest{Code: "P-1", Description: sdk.Ptr("new")} // IsActive left out: active

	_, err := c.WBSElements.Create(ctx, req)
	if errors.Is(err, sdk.ErrDuplicate) || errors.Is(err, sdk.ErrOutcomeUnknown) {
		// What the create would have made: an element is active unless
		// IsActive says false, and a description left out is left as it is.
		upd := &sdk.UpdateWBSElementRequest{IsActive: sdk.Set(req.IsActive == nil || *req.IsActive)}
		if req.Description != nil {
			upd.Description = sdk.Set(*req.Description)
		}
		_, uerr := c.WBSElements.Update(ctx, req.Code, upd)
		switch {
		case uerr == nil:
			err = nil // it existed, and now holds what req says
		case errors.Is(uerr, sdk.ErrNotFound):
			_, err = c.WBSElements.Create(ctx, req) // never made, or deleted since: make it
		default:
			err = uerr
		}
	}

	el, _ := srv.Element("P-1")
	fmt.Println(err, *el.Description, el.IsActive)
	// Output: <nil> new true
}

// A test of your own code against the reference server, with a fault;
// docs/testing.md shows the first lines.
func Example_faultsInYourTests() {
	srv := wbstest.NewServer(wbstest.WithOrgUpdateMode(wbstest.OrgReplace))
	defer srv.Close()
	client, _ := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))

	srv.AddFaults(wbstest.FaultRule{Operation: wbstest.OpCreate, Kind: wbstest.FaultDropAfterCommit, Times: 1})
	// ... run your code, then check srv.Elements(), srv.Stats(), srv.Journal()
	_, err := client.WBSElements.Create(context.Background(), &sdk.CreateWBSElementRequest{Code: "P-1"})
	fmt.Println(errors.Is(err, sdk.ErrOutcomeUnknown), len(srv.Elements()))
	// Output: true 1
}

// listFromTheEnvironment holds the lines of README.md's start from a Go
// program.
func listFromTheEnvironment(ctx context.Context) error {
	client, err := sdk.NewClient(os.Getenv("WBSCTL_BASE_URL"),
		sdk.WithCredentials(os.Getenv("WBSCTL_CLIENT_ID"), os.Getenv("WBSCTL_CLIENT_SECRET")))
	if err != nil {
		return err
	}
	for el, err := range client.WBSElements.All(ctx, nil) { // every page, 100 at a time
		if err != nil {
			return err
		}
		fmt.Println(el.Code, el.IsActive)
	}
	return nil
}

// The platform named by the environment, as wbsctl names it: here the
// reference server.
func Example_fromTheEnvironment() {
	srv := wbstest.NewServer()
	defer srv.Close()
	srv.Put(wbstest.Element{Code: "P-100.01", IsActive: true})
	for k, v := range map[string]string{"WBSCTL_BASE_URL": srv.URL, "WBSCTL_CLIENT_ID": srv.ClientID, "WBSCTL_CLIENT_SECRET": srv.ClientSecret} {
		defer os.Setenv(k, os.Getenv(k))
		os.Setenv(k, v)
	}
	fmt.Println(listFromTheEnvironment(context.Background()))
	// Output:
	// P-100.01 true
	// <nil>
}

// A platform that requires client certificates (mutual TLS): the
// certificate is set on the transport of the HTTP client given. It is
// presented whatever authorities the platform names as acceptable, so
// that a refusal says why (crypto/tls would otherwise send none).
func ExampleWithHTTPClient() {
	cert, err := tls.LoadX509KeyPair("client.crt", "client.key")
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := sdk.DefaultTransport()
	tr.TLSClientConfig = &tls.Config{
		MinVersion:           tls.VersionTLS12,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil },
	}
	client, err := sdk.NewClient("https://api.example.com",
		sdk.WithCredentials("integrationhub-1", os.Getenv("WBS_CLIENT_SECRET")),
		sdk.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = client
}

// The tour of docs/sdk.md: create, update with the three states of a
// field, and list.
func Example_tour() {
	srv := wbstest.NewServer() // the reference server; your platform's URL instead
	defer srv.Close()
	ctx := context.Background()

	client, err := sdk.NewClient(srv.URL, sdk.WithCredentials(srv.ClientID, srv.ClientSecret))
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{
		Code:                  "P-100.01",
		Description:           sdk.Ptr("Site preparation"),
		BusinessOrganizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}},
	})
	if err != nil {
		log.Fatal(err)
	}

	// Three states per field: unset (left as it is), Null (cleared), Set.
	_, err = client.WBSElements.Update(ctx, "P-100.01", &sdk.UpdateWBSElementRequest{
		Description: sdk.Null[string](),
		IsActive:    sdk.Set(false),
	})
	if err != nil {
		log.Fatal(err)
	}

	for el, err := range client.WBSElements.All(ctx, nil) { // 100 a page
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(el.Code, el.Description == nil, el.IsActive)
	}
	// Output: P-100.01 true false
}
