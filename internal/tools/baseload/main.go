// Command baseload is the baseline of scripts/bench: the least a loader of
// WBS elements can do over plain net/http. It exchanges one token, then
// creates elements B-000000 to B-(n-1) with c keep-alive connections, no
// checks, no retries, and prints the seconds it took.
//
//	go run ./internal/tools/baseload BASE_URL CLIENT_ID N C   (secret on stdin)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: baseload BASE_URL CLIENT_ID N CONCURRENCY (secret on stdin)")
		os.Exit(2)
	}
	base, clientID := strings.TrimRight(os.Args[1], "/"), os.Args[2]
	n, _ := strconv.Atoi(os.Args[3])
	c, _ := strconv.Atoi(os.Args[4])
	secret, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = c
	hc := &http.Client{Transport: tr}
	start := time.Now()
	body, _ := json.Marshal(map[string]string{"clientId": clientID, "clientSecret": strings.TrimSpace(secret)})
	resp, err := hc.Post(base+"/v1/auth/tokens", "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var tok struct{ AccessToken string }
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	next := make(chan int)
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				b, _ := json.Marshal(map[string]any{"wbsElementCode": fmt.Sprintf("B-%06d", i), "description": "baseline", "isActive": true})
				req, _ := http.NewRequest("POST", base+"/v1/wbs-elements", bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
				req.Header.Set("Content-Type", "application/json")
				if resp, err := hc.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	fmt.Printf("%.3f\n", time.Since(start).Seconds())
}
