// Command baseload is the baseline of scripts/bench: the least a client of
// the WBS element interface can do over plain net/http. It exchanges one
// token, then either creates elements B-000000 to B-(n-1) with c
// keep-alive connections (with -links, each with the two links of
// scripts/bench's files: company 1000 and branch B(i mod 50)), or reads
// the element list page by page (pages of size, up to the first short
// one) and discards the pages; no checks, no retries. It prints the
// seconds it took.
//
//	go run ./internal/tools/baseload [-links] BASE_URL CLIENT_ID N C  (secret on stdin)
//	go run ./internal/tools/baseload -list BASE_URL CLIENT_ID SIZE    (secret on stdin)
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

// record is an element as the JSON file gives it and the platform takes it.
type record struct {
	Code          string         `json:"wbsElementCode"`
	Description   string         `json:"description"`
	IsActive      bool           `json:"isActive"`
	Organizations []organization `json:"businessOrganizations,omitempty"`
}

type organization struct {
	Code       string `json:"code"`
	EntityType string `json:"entityType"`
}

func main() {
	start := time.Now()
	args := os.Args[1:]
	mode := ""
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		mode, args = args[0], args[1:]
	}
	var file string
	if mode == "-file" && len(args) > 0 {
		file, args = args[0], args[1:]
	}
	// The arguments after BASE_URL and CLIENT_ID: N and C, C alone, or SIZE.
	rest := map[string]int{"": 2, "-links": 2, "-file": 1, "-list": 1}
	if want, ok := rest[mode]; !ok || len(args) != 2+want {
		fmt.Fprintln(os.Stderr, "usage: baseload [-links] BASE_URL CLIENT_ID N CONCURRENCY | baseload -file FILE BASE_URL CLIENT_ID CONCURRENCY | baseload -list BASE_URL CLIENT_ID PAGE_SIZE (secret on stdin)")
		os.Exit(2)
	}
	base, clientID := strings.TrimRight(args[0], "/"), args[1]
	list, links := mode == "-list", mode == "-links"
	n, c := 0, 1
	switch mode {
	case "-file":
		c, _ = strconv.Atoi(args[2])
	case "-list":
		n, _ = strconv.Atoi(args[2]) // the page size
	default:
		n, _ = strconv.Atoi(args[2])
		c, _ = strconv.Atoi(args[3])
	}
	var recs []record
	if file != "" {
		data, err := os.ReadFile(file)
		if err == nil {
			err = json.Unmarshal(data, &recs)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		n = len(recs)
	}
	secret, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = c
	hc := &http.Client{Transport: tr}
	body, _ := json.Marshal(map[string]string{"clientId": clientID, "clientSecret": strings.TrimSpace(secret)})
	resp, err := hc.Post(base+"/v1/auth/tokens", "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var tok struct{ AccessToken string }
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if list {
		readList(hc, base, tok.AccessToken, n)
	} else {
		create(hc, base, tok.AccessToken, n, c, links, recs)
	}
	fmt.Printf("%.3f\n", time.Since(start).Seconds())
}

// create posts elements 0 to n-1: recs[i], or one made up from i where
// recs is nil.
func create(hc *http.Client, base, token string, n, c int, links bool, recs []record) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var el any
				if recs != nil {
					el = recs[i]
				} else {
					m := map[string]any{"wbsElementCode": fmt.Sprintf("B-%06d", i), "description": "baseline", "isActive": true}
					if links {
						m["businessOrganizations"] = []map[string]string{{"code": "1000", "entityType": "company"}, {"code": fmt.Sprintf("B%d", i%50), "entityType": "branch"}}
					}
					el = m
				}
				b, _ := json.Marshal(el)
				req, _ := http.NewRequest("POST", base+"/v1/wbs-elements", bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+token)
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
}

// readList reads pages 1, 2, … of size items until one holds fewer,
// decoding each (as any client must, to count its items) and keeping none.
func readList(hc *http.Client, base, token string, size int) {
	for page := 1; ; page++ {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/v1/wbs-elements?pageNumber=%d&pageSize=%d", base, page, size), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var p struct {
			Data []struct {
				Code        string  `json:"wbsElementCode"`
				Description *string `json:"description"`
				IsActive    bool    `json:"isActive"`
			} `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if len(p.Data) < size {
			return
		}
	}
}
