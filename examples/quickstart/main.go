// Quickstart: a token and the six operations on WBS elements.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/wbsctl/wbsctl/examples/internal/connect"
	"github.com/wbsctl/wbsctl/sdk"
)

func main() {
	ctx := context.Background()
	client, stop := connect.Client()
	defer stop()

	if _, err := client.Token(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("token: ok")

	code := "EX-QUICKSTART"
	_, err := client.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{
		Code:                  code,
		Description:           sdk.Ptr("Quickstart element"),
		BusinessOrganizations: []sdk.BusinessOrganization{{Code: "1000", EntityType: "company"}, {Code: "B1", EntityType: "branch"}},
	})
	check("create", err)

	page, err := client.WBSElements.List(ctx, &sdk.ListOptions{PageSize: 100})
	check("list", err)
	for _, el := range page.Data {
		if el.Code == code {
			fmt.Printf("list: %s %q active=%v\n", el.Code, *el.Description, el.IsActive)
		}
	}

	_, err = client.WBSElements.Update(ctx, code, &sdk.UpdateWBSElementRequest{IsActive: sdk.Set(false)})
	check("update", err)

	_, err = client.WBSElements.DeleteBusinessOrganizations(ctx, code, &sdk.DeleteBusinessOrganizationsRequest{
		BusinessOrganizations: []sdk.BusinessOrganization{{Code: "B1", EntityType: "branch"}},
	})
	check("delete business organizations", err)

	links, err := client.WBSElements.ListBusinessOrganizations(ctx, code, nil)
	check("list business organizations", err)
	for _, l := range links.Data {
		fmt.Printf("link: %s\n", l.BusinessOrganization())
	}

	_, err = client.WBSElements.Delete(ctx, code)
	check("delete", err)
	fmt.Println("deleted:", code)
}

func check(step string, err error) {
	if err != nil {
		log.Fatalf("%s: %v", step, err)
	}
	fmt.Println(step + ": ok")
}
