#!/usr/bin/env bash
# skip.sh MESSAGE: a test that cannot run here says why and is reported as skipped (status 77).
echo "skipped: $1"
exit 77
