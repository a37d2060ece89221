// Bulkload: creating many elements with bounded concurrency, settling
// creates whose outcome is unknown by reading the list back.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/wbsctl/wbsctl/examples/internal/connect"
	"github.com/wbsctl/wbsctl/sdk"
	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"
)

func main() {
	ctx := context.Background()
	// 240 requests a minute, the platform's documented limit, shared by
	// all workers, with a burst of one: a burst of four would let 244
	// start in a minute.
	client, stop := connect.Client(sdk.WithLimiter(rate.NewLimiter(rate.Every(time.Minute/240), 1)))
	defer stop()

	var mu sync.Mutex
	var unknown []string
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i := range 20 {
		code := fmt.Sprintf("EX-BULK-%03d", i)
		g.Go(func() error {
			_, err := client.WBSElements.Create(gctx, &sdk.CreateWBSElementRequest{Code: code})
			if errors.Is(err, sdk.ErrOutcomeUnknown) {
				mu.Lock()
				unknown = append(unknown, code)
				mu.Unlock()
				return nil
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		log.Fatal(err)
	}
	// One read of the list settles every unclear create.
	present := map[string]bool{}
	for el, err := range client.WBSElements.All(ctx, &sdk.ListOptions{PageSize: 100}) {
		if err != nil {
			log.Fatal(err)
		}
		present[el.Code] = true
	}
	for _, code := range unknown {
		if !present[code] {
			if _, err := client.WBSElements.Create(ctx, &sdk.CreateWBSElementRequest{Code: code}); err != nil {
				log.Fatal(err)
			}
		}
	}
	n := 0
	for code := range present {
		if len(code) > 8 && code[:8] == "EX-BULK-" {
			n++
		}
	}
	fmt.Printf("loaded %d elements\n", n)
}
