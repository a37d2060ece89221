// Tokencache: a TokenCache of our own, shared by short-lived clients so
// that they make one token exchange between them.
package main

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/wbsctl/wbsctl/examples/internal/connect"
	"github.com/wbsctl/wbsctl/sdk"
)

// countingCache keeps tokens in a map and counts what it is asked.
type countingCache struct {
	mu         sync.Mutex
	tokens     map[sdk.TokenCacheKey]sdk.Token
	gets, puts int
}

func (c *countingCache) Get(_ context.Context, k sdk.TokenCacheKey) (sdk.Token, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	t, ok := c.tokens[k]
	return t, ok, nil
}

func (c *countingCache) Put(_ context.Context, k sdk.TokenCacheKey, t sdk.Token) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	c.tokens[k] = t
	return nil
}

func main() {
	cache := &countingCache{tokens: map[sdk.TokenCacheKey]sdk.Token{}}
	platform := connect.Open()
	defer platform.Close()
	for range 3 {
		// A fresh client each time, as three processes would be.
		client := platform.Client(sdk.WithTokenCache(cache))
		if _, err := client.WBSElements.List(context.Background(), nil); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("3 clients, %d token exchange\n", cache.puts)
}
