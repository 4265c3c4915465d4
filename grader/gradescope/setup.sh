#!/usr/bin/env bash
# Written by `python -m grader gradescope`. Gradescope runs it once, as root, when it builds the image.
# Installs exactly what grading needs (torch 2.13.0, CPU build; matplotlib, which chapter 14's students draw
# with), creates the unprivileged account
# the student's code runs as, and makes the grader's files (references, judges) readable by root only.
# GRADER_VENV=/path/to/venv uses an existing venv instead of installing (tests; nothing is downloaded).
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
SOURCE=/autograder/source
VENV=/opt/grader-venv
STUDENT=grader-student
TORCH=2.13.0
MATPLOTLIB=3.11.2

if [ -n "${GRADER_VENV:-}" ]; then
    PYTHON="$GRADER_VENV/bin/python"
else
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends python3 python3-venv bubblewrap util-linux passwd
    python3 -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 needed: choose the Ubuntu 24.04 base image"'
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu "torch==$TORCH"
    "$VENV/bin/pip" install --no-cache-dir "matplotlib==$MATPLOTLIB"
    chmod -R a+rX "$VENV"
    PYTHON="$VENV/bin/python"
fi
"$PYTHON" -c "import torch; assert torch.__version__.split('+')[0] == '$TORCH', torch.__version__"
"$PYTHON" -c "import matplotlib"
echo "$PYTHON" > "$SOURCE/python-path"

id -u "$STUDENT" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$STUDENT"
chown -R root:root "$SOURCE"
chmod -R go-rwx "$SOURCE"
