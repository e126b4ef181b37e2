# Sourced by ./tenbin and .ci/run: points JAVA_HOME at a JDK 21 or newer (Lucene 10 needs it).
# Order: an already-set JAVA_HOME that is new enough, then Temurin 25, then any JDK >= 21 under
# /usr/lib/jvm, then `java` on the PATH.

# The feature version (25 for 25.0.3) of the JDK whose java binary is $1: from the JDK's `release`
# file when it has one (reading it is instant, starting a JVM to ask is not), else from the JVM.
tenbin_java_feature_version() {
  local release="${1%/bin/java}/release" v=""
  if [ -f "$release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\)[."].*/\1/p' "$release" | head -n 1)
  fi
  if [ -n "$v" ] && [ "$v" != 1 ]; then
    echo "$v"
    return 0
  fi
  "$1" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p' | head -n 1
}

tenbin_jdk_ok() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  local v
  v=$(tenbin_java_feature_version "$1/bin/java")
  [ -n "$v" ] && [ "$v" -ge 21 ]
}

tenbin_select_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && tenbin_jdk_ok "$JAVA_HOME"; then
    export JAVA_HOME
    return 0
  fi
  local candidate
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25* /usr/lib/jvm/*; do
    if tenbin_jdk_ok "$candidate"; then
      export JAVA_HOME="$candidate"
      return 0
    fi
  done
  if command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    if tenbin_jdk_ok "$candidate"; then
      export JAVA_HOME="$candidate"
      return 0
    fi
  fi
  echo "tenbin: no JDK 21 or newer found; install one (e.g. Temurin 25) or set JAVA_HOME" >&2
  return 1
}

tenbin_select_jdk

# Maven's own Guice calls sun.misc.Unsafe; JDK 24+ warns about it on every build. Allow it for the
# Maven JVM only (the option exists from JDK 23; older JDKs would refuse to start with it, which is
# why it is not in .mvn/jvm.config). TENBIN_VERBOSE=1 keeps the warnings.
if [ -z "${TENBIN_VERBOSE:-}" ] && [ "$(tenbin_java_feature_version "$JAVA_HOME/bin/java")" -ge 23 ] 2>/dev/null; then
  case " ${MAVEN_OPTS:-} " in
    *" --sun-misc-unsafe-memory-access="*) ;;
    *) export MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow${MAVEN_OPTS:+ $MAVEN_OPTS}" ;;
  esac
fi
