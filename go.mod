module github.com/wbsctl/wbsctl

go 1.24.0
