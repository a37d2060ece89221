module github.com/wbsctl/wbsctl

go 1.26.0

require (
	github.com/go-resty/resty/v2 v2.17.2
	github.com/spf13/cobra v1.10.2
	golang.org/x/sync v0.24.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/net v0.43.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)
