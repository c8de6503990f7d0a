#!/bin/sh
# Record what a real agent CLI prints for one scripted answer of the mock model server, for the
# fixtures in fixtures/cli-outputs/. Runs in a network namespace with only loopback when it can.
#
#   tests/e2e/record.sh CLI SCRIPT.json OUT_FILE [PREFIX]
#   CLI: claude | codex | gemini | aider | claude-down | codex-down (the server is not listening)
#   PREFIX: where the CLIs are installed (PREFIX/<cli>/node_modules/.bin, PREFIX/aider-venv/bin)
set -eu
if [ -z "${IN_NETNS:-}" ] && unshare -n true 2>/dev/null; then
  IN_NETNS=1 exec unshare -n sh -c 'ip link set lo up && exec "$0" "$@"' "$0" "$@"
fi
cli=$1 script=$2 out=$3 prefix=${4:-/tmp/clis}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill $mock 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/codex-home" "$work/repo"
brief=${BRIEF:-$here/../../fixtures/cli-outputs/brief.md}
schema=${SCHEMA:-$here/../../fixtures/cli-outputs/schema.json}
python3 "$here/mock_model.py" --script "$script" --port-file "$work/port" --log "$work/requests.log" &
mock=$!
i=0; while [ ! -s "$work/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
port=$(cat "$work/port")
case $cli in *-down) port=9 ;; esac # discard port: nothing listens there
export HOME="$work/home" CODEX_HOME="$work/codex-home"
cd "$work/repo"
case $cli in
claude|claude-down)
  ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=dummy CLAUDE_CODE_MAX_RETRIES=0 \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
  DISABLE_ERROR_REPORTING=1 timeout 60 "$prefix/claude/node_modules/.bin/claude" -p \
    --output-format json --json-schema "$(cat "$schema")" --permission-mode plan \
    --tools Read,Grep,Glob --max-turns 30 --no-session-persistence --strict-mcp-config \
    < "$brief" > "$out" || echo "exit $?" >&2 ;;
codex|codex-down)
  cat > "$CODEX_HOME/config.toml" <<TOML
model = "mock-model"
model_provider = "mock"
[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$port/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
[analytics]
enabled = false
TOML
  timeout 60 "$prefix/codex/node_modules/.bin/codex" exec --json --ephemeral --skip-git-repo-check \
    --sandbox read-only --disable plugins --output-schema "$schema" < "$brief" > "$out" \
    || echo "exit $?" >&2 ;;
gemini|gemini-down)
  mkdir -p "$HOME/.gemini"
  echo '{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false}}' \
    > "$HOME/.gemini/settings.json"
  GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$port GEMINI_API_KEY=dummy \
  timeout 60 "$prefix/gemini/node_modules/.bin/gemini" --skip-trust --approval-mode plan --output-format json \
    --extensions none --allowed-mcp-server-names none -p "Answer as the brief on standard input says." \
    < "$brief" > "$out" || echo "exit $?" >&2 ;;
aider|aider-down)
  timeout 120 "$prefix/aider-venv/bin/aider" --model openai/mock-model \
    --openai-api-base "http://127.0.0.1:$port/v1" --openai-api-key dummy \
    --chat-mode ask --dry-run --no-git --no-gitignore --no-auto-commits --no-auto-lint \
    --no-auto-test --map-tokens 0 --yes-always --no-check-update --no-analytics \
    --no-show-model-warnings --no-pretty --no-stream --no-fancy-input --no-notifications \
    --no-suggest-shell-commands --no-detect-urls --no-restore-chat-history \
    --chat-history-file "$work/chat.md" --input-history-file "$work/input" \
    --env-file /dev/null --message-file "$brief" < /dev/null > "$out" || echo "exit $?" >&2 ;;
esac
cat "$work/requests.log" >&2 2>/dev/null || true
