module github.com/wbsctl/wbsctl

go 1.26.0

require (
	github.com/go-resty/resty/v2 v2.17.2
	golang.org/x/sync v0.24.0
)

require (
	golang.org/x/net v0.43.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)
