#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that every ```c block of a Markdown page is a piece of a C file that CI compiles, line
# for line (leading and trailing blanks aside), so that no snippet of the page goes stale.
#     check_snippets.sh PAGE.md PROGRAM.c
set -u
page=$1
program=$2
trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -v '^$'; }
haystack=$'\n'$(trim < "$program")$'\n'
blocks=0
failures=0
block=""
inside=0
while IFS= read -r line; do
  if ((inside)); then
    if [[ $line == '```' ]]; then
      inside=0
      blocks=$((blocks + 1))
      needle=$'\n'$(printf '%s' "$block" | trim)$'\n'
      if [[ $haystack != *"$needle"* ]]; then
        failures=$((failures + 1))
        echo "FAIL: snippet $blocks of $page is not in $program:"
        printf '%s' "$block" | sed 's/^/    /'
      fi
      block=""
    else
      block+="$line"$'\n'
    fi
  elif [[ $line == '```c' ]]; then
    inside=1
  fi
done < "$page"
echo "$((blocks - failures)) of $blocks C snippets of $page are in $program"
((blocks > 0 && failures == 0))
