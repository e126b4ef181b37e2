#!/usr/bin/env bash
# Prints the config (entrypoint, args, user, ports, env, volumes) of an image tarball built by
# `./mvnw -Pimage ...` and fails when the user is root or not numeric, or a service port is missing.
# Usage: k8s/image-config.sh [app/target/jib-image.tar]
set -euo pipefail
tar_file="${1:-app/target/jib-image.tar}"
tar -xOf "$tar_file" config.json | python3 -c '
import json, sys
c = json.load(sys.stdin)["config"]
print(json.dumps({k: c.get(k) for k in ["Entrypoint", "Cmd", "User", "ExposedPorts", "Env", "Volumes", "WorkingDir"]}, indent=1))
user = (c.get("User") or "0").split(":")[0]
assert user.isdigit() and user != "0", "image user must be a numeric non-root uid, got %r" % user
ports = set(c.get("ExposedPorts") or {})
missing = {"50051/tcp", "50052/tcp", "50053/tcp", "50054/tcp", "9464/tcp"} - ports
assert not missing, "ports not declared: %s" % sorted(missing)
assert any(a.startswith("-XX:MaxRAMPercentage=") for a in c["Entrypoint"]), "heap not sized from the memory limit"
print("image config OK")
'
