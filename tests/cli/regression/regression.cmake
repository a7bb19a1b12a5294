# Filled in by the regression suite (tests/cli/regression/): the table of the review's inputs and
# the generated valid scenarios.
