#!/usr/bin/env bash
# Builds a self-contained bench kit: a tarball that runs Tenbin's benches on a Linux x86-64 machine
# with no JDK and no Maven (a lent GPU machine used for its cores, a fresh cloud VM). It holds a
# jlinked JDK, the built CLI jar and its libraries, the index-service test classes with JMH, and
# optionally BEIR datasets; `kit/tenbin ...` runs the CLI as ./tenbin does, `kit/jmh ...` runs JMH
# as ./tenbin jmh does. Usage:
#
#   tools/bench_kit.sh OUT.tar.xz [--dataset DIR]... [--slim]
#
# --slim leaves out what the index and BM25 benches do not load (the embedded ONNX models, ONNX
# Runtime, DuckDB, the Kubernetes client) and the dictionaries of the non-English analyzers, so the
# kit fits a 64 MiB transfer (about 39 MB); `bench bm25 --language en`, `bench index-scaling` and
# the JMH benchmarks run from it. Without --slim everything is kept (several hundred MB).
#
# Needs, besides the project's own JDK and Maven wrapper: jlink (in the JDK), zip, xz, python3 and
# strip (binutils; skipped when absent). The kit runs where this machine's JDK runs (same OS and
# processor).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../.mvn/select-jdk.sh
. "$root/.mvn/select-jdk.sh"

out=""
slim=0
datasets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dataset) datasets+=("$2"); shift 2 ;;
    --slim) slim=1; shift ;;
    -*) echo "bench_kit: unknown option $1" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
if [ -z "$out" ]; then
  echo "usage: tools/bench_kit.sh OUT.tar.xz [--dataset DIR]... [--slim]" >&2
  exit 2
fi
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"

mvnw=("$root/mvnw" -f "$root/pom.xml" -B -q --no-transfer-progress)
"${mvnw[@]}" install -DskipTests -Dspotless.check.skip=true >&2
"${mvnw[@]}" -pl index-service dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$root/index-service/target/test.classpath" >&2

stage=$(mktemp -d "${TMPDIR:-/tmp}/tenbin-kit.XXXXXX")
trap 'rm -rf "$stage"' EXIT
kit="$stage/kit"
mkdir -p "$kit/lib" "$kit/jmh-lib" "$kit/data"

"$JAVA_HOME/bin/jlink" --add-modules \
  java.base,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.unsupported,jdk.incubator.vector,jdk.management,jdk.crypto.ec,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --compress=zip-0 --output "$kit/jre" 2>/dev/null
strip --strip-unneeded "$kit/jre/lib/server/libjvm.so" 2>/dev/null || true

cp "$root/app/target/tenbin.jar" "$kit/"
for jar in "$root"/app/target/lib/*.jar; do
  name=$(basename "$jar")
  if [ "$slim" = 1 ] && [[ "$name" =~ ^(langchain4j|duckdb|onnxruntime|client-java|bcp|bcutil|helm|kotlin|okhttp|okio|logging-interceptor|gson-fire|swagger|jose4j|tokenizers) ]]; then
    continue
  fi
  cp "$jar" "$kit/lib/"
done
if [ "$slim" = 1 ]; then
  (
    cd "$kit/lib"
    zip -q -d grpc-netty-shaded-*.jar 'META-INF/native/*osx*' 'META-INF/native/*aarch_64*' 'META-INF/native/*windows*' || true
    zip -q -d lucene-analysis-nori-*.jar '*.dat' || true
    zip -q -d lucene-analysis-kuromoji-*.jar '*.dat' || true
    zip -q -d lucene-analysis-smartcn-*.jar '*.mem' || true
    zip -q -d morfologik-ukrainian-search-*.jar '*.dict' || true
    zip -q -d morfologik-polish-*.jar '*.dict' || true
    zip -q -d icu4j-*.jar 'com/ibm/icu/impl/data/icudata/*' || true
  )
fi
# Jars stored uncompressed: xz packs the class files far better than the jars' own deflate.
python3 - "$kit/lib" <<'PY'
import glob, os, sys, zipfile
for jar in glob.glob(os.path.join(sys.argv[1], "*.jar")):
    tmp = jar + ".tmp"
    with zipfile.ZipFile(jar) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            entry = zipfile.ZipInfo(info.filename, info.date_time)
            entry.external_attr = info.external_attr
            zout.writestr(entry, zin.read(info.filename))
    os.replace(tmp, jar)
PY

cp -r "$root/index-service/target/test-classes" "$kit/index-test-classes"
tr ':' '\n' < "$root/index-service/target/test.classpath" \
  | grep -E '/(jmh-core|jopt-simple|commons-math3)-[^/]*\.jar$' | xargs -I{} cp {} "$kit/jmh-lib/"
for dataset in ${datasets[@]+"${datasets[@]}"}; do
  cp -r "$dataset" "$kit/data/"
done

# The launcher's JVM flags (see ./tenbin).
flags='--add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED -Xss4m -XX:+UseParallelGC'
cat > "$kit/tenbin" <<EOF
#!/usr/bin/env bash
# Tenbin's CLI from this kit, with the launcher's JVM flags; TENBIN_JAVA_OPTS adds more.
kit="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
exec "\$kit/jre/bin/java" $flags \${TENBIN_JAVA_OPTS:-} -jar "\$kit/tenbin.jar" "\$@"
EOF
cat > "$kit/jmh" <<EOF
#!/usr/bin/env bash
# JMH over the index-service benchmarks, as ./tenbin jmh runs them; arguments go to JMH.
kit="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
exec "\$kit/jre/bin/java" --add-modules jdk.incubator.vector -Xss4m \
  -cp "\$kit/index-test-classes:\$kit/lib/*:\$kit/jmh-lib/*" org.openjdk.jmh.Main "\$@"
EOF
chmod +x "$kit/tenbin" "$kit/jmh"
(cd "$root" && git rev-parse HEAD) > "$kit/COMMIT" 2>/dev/null || true

tar -C "$stage" -cf - kit | xz -T0 -6 > "$out"
echo "$out: $(du -h "$out" | cut -f1) (unpack with tar -xJf, then kit/tenbin ... or kit/jmh ...)"
