#!/usr/bin/env bash
# The README's screenshot of the eval service's web UI: an eval service on loopback (embedded
# services, a fresh state folder under a temporary folder), the quickstart job submitted and
# watched to its end, then the all-jobs leaderboard rendered by headless Chromium at 1,024 px.
#
#   tools/web_ui_screenshot.sh [OUT.png]      (default docs/images/web-ui-leaderboard.png)
#
# Needs /usr/bin/chromium (.ci/install-chromium). Ports 50164, 8164 and 9577 must be free.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/images/web-ui-leaderboard.png}
work=$(mktemp -d)
trap 'kill "$server" 2> /dev/null || true; wait 2> /dev/null || true; rm -rf "$work"' EXIT
./tenbin serve eval --port 50164 --http-port 8164 --metrics-port 9577 --data-root samples \
  --results-root "$work/runs" --state-dir "$work/state" > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do
  curl -sf localhost:9577/readyz > /dev/null && break
  kill -0 "$server" 2> /dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 1
done
curl -sf localhost:9577/readyz > /dev/null || { echo "the eval service is not ready after 10 minutes" >&2; exit 1; }
./tenbin job submit samples/quickstart.yaml --out quickstart --endpoint localhost:50164 --watch
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1024,1300 \
  --screenshot="$out" "http://localhost:8164/leaderboard" 2> /dev/null
echo "wrote $out"
