// GuavaCheck writes and reads Bloom filters with the real Guava
// (com.google.common.hash.BloomFilter), for formats/guava's golden files
// and its round trip with bloomcast. The keys are generated as
// formats/guava's tests generate them:
//
//   string key i, present: "present-" + i, followed by "-é✓𝄞" when i%7 == 0
//   string key i, absent:  "absent-" + i
//   long key i, present:   i * 0x9E3779B97F4A7C15 (wrapping)
//   long key i, absent:    i * 0x9E3779B97F4A7C15 + 1
//
// An answers file is a bitmap of mightContain for the n present keys,
// then the a absent keys: bit j is bit j%8 of byte j/8.
//
// Usage:
//   java -cp guava.jar:. GuavaCheck gen str|long mitz32|mitz64 N FPP A FILTER ANSWERS
//   java -cp guava.jar:. GuavaCheck query str|long FILTER N A ANSWERS
//   java -cp guava.jar:. GuavaCheck sizes N:FPP...
//
// gen builds BloomFilter.create(funnel, N, FPP), puts the N present keys
// and writes the filter with writeTo. Guava's public API builds only
// MURMUR128_MITZ_64 filters; for mitz32 it reads back the empty filter's
// stream with the strategy byte set to 0 (MURMUR128_MITZ_32), which
// BloomFilter.readFrom accepts, and puts the keys into that.
// query reads a filter with BloomFilter.readFrom and records its answers.
// sizes prints "N FPP WORDS K" for BloomFilter.create(N, FPP), or
// "N FPP error" when create refuses the arguments.

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

public final class GuavaCheck {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  static String strKey(boolean present, int i) {
    if (!present) {
      return "absent-" + i;
    }
    return i % 7 == 0 ? "present-" + i + "-é✓\uD834\uDD1E" : "present-" + i;
  }

  static long longKey(boolean present, int i) {
    return i * GOLDEN + (present ? 0 : 1);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Funnel funnel(String kind) {
    switch (kind) {
      case "str":
        return Funnels.stringFunnel(StandardCharsets.UTF_8);
      case "long":
        return Funnels.longFunnel();
      default:
        throw new IllegalArgumentException("kind " + kind + ": want str or long");
    }
  }

  static Object key(String kind, boolean present, int i) {
    return kind.equals("str") ? strKey(present, i) : (Object) longKey(present, i);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static byte[] answers(BloomFilter f, String kind, int n, int a) {
    byte[] bits = new byte[(n + a + 7) / 8];
    for (int j = 0; j < n + a; j++) {
      boolean present = j < n;
      if (f.mightContain(key(kind, present, present ? j : j - n))) {
        bits[j / 8] |= (byte) (1 << (j % 8));
      }
    }
    return bits;
  }

  static void write(String path, byte[] data) throws IOException {
    try (OutputStream out = new FileOutputStream(path)) {
      out.write(data);
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static byte[] bytesOf(BloomFilter f) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    f.writeTo(buf);
    return buf.toByteArray();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void main(String[] args) throws IOException {
    switch (args[0]) {
      case "gen": {
        String kind = args[1];
        int n = Integer.parseInt(args[3]);
        double fpp = Double.parseDouble(args[4]);
        int a = Integer.parseInt(args[5]);
        Funnel fun = funnel(kind);
        BloomFilter f = BloomFilter.create(fun, n, fpp);
        if (args[2].equals("mitz32")) {
          byte[] empty = bytesOf(f);
          empty[0] = 0;
          f = BloomFilter.readFrom(new ByteArrayInputStream(empty), fun);
        } else if (!args[2].equals("mitz64")) {
          throw new IllegalArgumentException("strategy " + args[2] + ": want mitz32 or mitz64");
        }
        for (int i = 0; i < n; i++) {
          f.put(key(kind, true, i));
        }
        write(args[6], bytesOf(f));
        write(args[7], answers(f, kind, n, a));
        break;
      }
      case "query": {
        String kind = args[1];
        BloomFilter f;
        try (InputStream in = new FileInputStream(args[2])) {
          f = BloomFilter.readFrom(in, funnel(kind));
        }
        write(args[5], answers(f, kind, Integer.parseInt(args[3]), Integer.parseInt(args[4])));
        break;
      }
      case "sizes": {
        for (int i = 1; i < args.length; i++) {
          String[] nf = args[i].split(":");
          BloomFilter f;
          try {
            f = BloomFilter.create(Funnels.longFunnel(), Long.parseLong(nf[0]), Double.parseDouble(nf[1]));
          } catch (IllegalArgumentException e) {
            System.out.println(nf[0] + " " + nf[1] + " error");
            continue;
          }
          ByteBuffer b = ByteBuffer.wrap(bytesOf(f));
          b.get();
          int k = b.get() & 0xff;
          System.out.println(nf[0] + " " + nf[1] + " " + b.getInt() + " " + k);
        }
        break;
      }
      default:
        throw new IllegalArgumentException("mode " + args[0] + ": want gen, query or sizes");
    }
  }
}
