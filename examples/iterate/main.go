// Iterate: every element with All, one page at a time, and an early break.
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
	for i := range 25 {
		if _, err := client.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: fmt.Sprintf("EX-ITER-%02d", i)}); err != nil {
			log.Fatal(err)
		}
	}
	n := 0
	for el, err := range client.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 10}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
		if el.Code == "EX-ITER-14" {
			// Breaking out stops the fetching: the third page is never read.
			break
		}
	}
	fmt.Printf("read %d elements, stopped at EX-ITER-14\n", n)
}
