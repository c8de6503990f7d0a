#!/bin/sh
# A runner that tries what the sandbox must refuse and reports each attempt in its document:
#   interview intent 42 --from examples/intents/42-export-csv.md \
#     --runner 'sh scripts/check-sandbox.sh' --answers fixtures/answers/no-decisions.json --yes --out -
# Every entry should say "denied". It changes nothing that the sandbox lets through only in
# ways that are undone: a mode it could change is set back, a written line is removed.
entries=""
try() {
  what="$1"; shift
  if (eval "$1") >/dev/null 2>&1; then verdict="ALLOWED"; eval "${2:-true}" >/dev/null 2>&1; else verdict="denied"; fi
  entry=$(printf '{"title":"%s","content":"%s","clarity":"inferred","sources":[]}' "$verdict: $what" "$verdict")
  entries="${entries:+$entries,}$entry"
}
mode=$(stat -c %a "$HOME" 2>/dev/null || stat -f %Lp "$HOME")
try "chmod of HOME" 'chmod 777 "$HOME"' 'chmod "$mode" "$HOME"'
try "write to HOME" 'touch "$HOME/.interview-sandbox-check"' 'rm -f "$HOME/.interview-sandbox-check"'
try "write to the repository" 'touch .interview-sandbox-check' 'rm -f .interview-sandbox-check'
try "write to the git directory" 'touch "$(git rev-parse --git-dir)/interview-sandbox-check"' 'rm -f "$(git rev-parse --git-dir)/interview-sandbox-check"'
try "open the terminal" 'exec 3>/dev/tty'
try "connect to the session bus" 'for s in /run/user/*/bus; do python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])" "$s" && exit 0; done; exit 1'
try "see other processes' shared memory" 'test -n "$(ipcs -m 2>/dev/null | awk '"'"'$1 ~ /^0x/'"'"')"'
printf '{"receipt":"done","version":1,"title":"Sandbox check","summary":"What a runner could do here.","entries":[%s]}\n' "$entries" > "$INTERVIEW_RECEIPT"
