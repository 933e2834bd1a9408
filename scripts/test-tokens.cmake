# SPDX-License-Identifier: MIT
# scripts/test.sh's builds include this after project() (CMAKE_PROJECT_INCLUDE): every compile,
# link and custom command (hipcc's) waits for a job token (scripts/with-token.sh). Not part of
# the project: a build configured without it runs its commands directly.
foreach(_rule IN ITEMS RULE_LAUNCH_COMPILE RULE_LAUNCH_LINK RULE_LAUNCH_CUSTOM)
  set_property(GLOBAL PROPERTY ${_rule} "${CMAKE_CURRENT_LIST_DIR}/with-token.sh")
endforeach()
