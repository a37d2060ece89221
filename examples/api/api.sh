#!/usr/bin/env bash
# wbsctl api against a reference server of its own: create an element with
# typed fields, read the whole list across pages, and run an integration.
#
#   examples/api/api.sh [WBSCTL_BINARY]
set -euo pipefail
wbsctl=${1:-wbsctl}
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
"$wbsctl" serve --addr 127.0.0.1:0 --credential integrationhub-4711=example-secret-value >"$work/serve.out" 2>/dev/null &
pid=$!
for _ in $(seq 1 100); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
export WBSCTL_BASE_URL=$(head -n1 "$work/serve.out") WBSCTL_CLIENT_ID=integrationhub-4711 WBSCTL_CLIENT_SECRET=example-secret-value
export XDG_CACHE_HOME="$work/cache"

for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	"$wbsctl" api /v1/wbs-elements -f wbsElementCode="EX-API-$i" -f description="made by wbsctl api" -F isActive=true --silent
done
"$wbsctl" api -X PUT /v1/wbs-elements/EX-API-1 -F isActive=false --silent
echo "elements: $("$wbsctl" api /v1/wbs-elements --paginate --page-size 5 --slurp --jq 'length')"
echo "inactive: $("$wbsctl" api /v1/wbs-elements --paginate --jq '.[] | select(.isActive | not) | .wbsElementCode')"
printf '{"orderId": 42}' | "$wbsctl" api -X POST /integration-hub-api/v1/flows/4711/execute --input - --jq '"flow " + .flowId + " ran"'
