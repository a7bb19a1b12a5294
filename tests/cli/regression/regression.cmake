# The hostile-user review's inputs as a regression table, and generated valid scenarios over a fixed
# seed range (tests/cli/regression/). Included from tests/CMakeLists.txt, so CMAKE_CURRENT_SOURCE_DIR
# is tests/. Both use Debian's python3 with python3-yaml only.
set(electsim_regression_dir ${CMAKE_CURRENT_SOURCE_DIR}/cli/regression)
set(electsim_regression_python /usr/bin/python3)

# Every row of inputs.yaml, each in its own temporary folder: the exit status and the message the
# review's input must give now (about 45 s on 2 cores).
add_test(NAME cli.regression_table
         COMMAND ${electsim_regression_python} ${electsim_regression_dir}/run_table.py
                 $<TARGET_FILE:electsim> ${PROJECT_SOURCE_DIR} ${electsim_regression_dir}/inputs.yaml)

# Generated valid scenarios, seeds 1..1000 (the generator's default; about 40 s on 2 cores): each
# parses and runs (exit 0 or 1), reports no model-sanity violation, and replays with the same trace
# hash; every tenth also under --seed.
add_test(NAME cli.generated_scenarios
         COMMAND ${electsim_regression_python} ${electsim_regression_dir}/generate_scenarios.py
                 $<TARGET_FILE:electsim> ${PROJECT_SOURCE_DIR})

# Label slow: not in the sanitizer pass, whose shadow memory needs far more address space than the
# table's ulimit -v rows allow, and whose slowdown would take both past their timeout.
set_tests_properties(cli.regression_table cli.generated_scenarios PROPERTIES TIMEOUT 600 LABELS slow)
