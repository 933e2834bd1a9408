#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# with-token.sh <command> [arguments...]: runs the command holding one job token of
# scripts/test.sh's run, a byte of the FIFO named by YAMR_TEST_TOKENS (test.sh keeps it open and
# puts one token a core in it). The compiles, links and custom commands of the run's builds come
# through here (scripts/test-tokens.cmake): together they never run more at once than there are
# cores, whichever steps they belong to. The wait is a blocking read, no polling. Without
# YAMR_TEST_TOKENS (a build folder used by hand later) it runs the command as it is.
[[ -n ${YAMR_TEST_TOKENS:-} ]] || exec "$@"
exec 3<> "$YAMR_TEST_TOKENS"
IFS= read -r -n 1 -u 3 _
rc=0
"$@" 3>&- || rc=$?
printf t >&3
exit "$rc"
