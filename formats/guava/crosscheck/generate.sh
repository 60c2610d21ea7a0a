#!/usr/bin/env bash
# Writes formats/guava/testdata with the real Guava (Debian's
# libguava-java, run by the default JDK): filters built and filled by
# GuavaCheck.java, Guava's mightContain answers for 10^4 present and 10^4
# absent keys of each, and the sizes BloomFilter.create picks. The Go
# tests check bloomcast against these files without Java.
#
#	formats/guava/crosscheck/generate.sh
set -euo pipefail
cd "$(dirname "$0")"
jar=${GUAVA_JAR:-/usr/share/java/guava.jar}
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
javac -encoding UTF-8 -d "$classes" -cp "$jar" GuavaCheck.java
run() { java -cp "$jar:$classes" GuavaCheck "$@"; }
out=../testdata
n=10000
for spec in str:mitz64:0.01 long:mitz64:0.01 str:mitz32:0.03 long:mitz32:0.001; do
	IFS=: read -r kind strategy fpp <<<"$spec"
	name="$kind-$strategy-n$n-p$fpp"
	run gen "$kind" "$strategy" "$n" "$fpp" "$n" "$out/$name.bin" "$out/$name.answers"
done
run sizes 0:0.5 1:0.01 1:0.5 3:0.9 1000:0.01 10000:0.001 123456:0.03 1000000:1e-9 \
	5000000:0.0001 77:0.2 100:1e-30 >"$out/sizes.txt"
java -version 2>&1 | head -n 1 >"$out/VERSION"
dpkg-query -W -f 'libguava-java ${Version}\n' libguava-java >>"$out/VERSION" 2>/dev/null || basename "$jar" >>"$out/VERSION"
