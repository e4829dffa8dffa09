// attempts: throw hostile input at TextDecoder's bridge to the worker's Node
// (legacy encodings): a label whose toString throws, a label of a million
// characters, labels with NUL and non-ASCII, options whose getters throw,
// input that is no buffer, 300 streams left open (past the worker's cap of
// 256 kept decoders), a fatal decoder fed garbage, and 4 MiB decoded.
// expect: ok
// expect-output: {"thrownLabel":"boom","hugeLabel":"RangeError","nulLabel":"RangeError","unicodeLabel":"RangeError","getterOption":"opt","notBytes":"TypeError","open":"あ","fatal":"TypeError","decodedChars":2097152}
import { defineTool } from "corral";
import { z } from "zod";

const nameOf = (f: () => unknown): string => {
  try {
    f();
    return "none";
  } catch (e) {
    return e instanceof Error && e.message.length < 10 ? e.message : String((e as Error).name);
  }
};

export default defineTool({
  name: "crash-text-decoder-bridge",
  description: "hostile case: crash-text-decoder-bridge",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  run() {
    const thrownLabel = nameOf(() => new TextDecoder({ toString: () => { throw new Error("boom"); } } as unknown as string));
    const hugeLabel = nameOf(() => new TextDecoder("shift_jis".padEnd(1_000_000, "x")));
    const nulLabel = nameOf(() => new TextDecoder("shift_jis\0"));
    const unicodeLabel = nameOf(() => new TextDecoder("shift_jİs"));
    const getterOption = nameOf(() => new TextDecoder("shift_jis", { get fatal() { throw new Error("opt"); } }));
    const notBytes = nameOf(() => new TextDecoder("shift_jis").decode({ length: 1e9 } as unknown as Uint8Array));
    let open = "";
    for (let i = 0; i < 300; i++) {
      const decoder = new TextDecoder("shift_jis");
      decoder.decode(new Uint8Array([0x82]), { stream: true });
      if (i === 0) open = decoder.decode(new Uint8Array([0xa0]));
    }
    const fatal = nameOf(() => new TextDecoder("euc-jp", { fatal: true }).decode(new Uint8Array([0x8e, 0xff, 0xff])));
    const bytes = new Uint8Array(4 << 20);
    for (let i = 0; i < bytes.length; i += 2) {
      bytes[i] = 0x82;
      bytes[i + 1] = 0xa0;
    }
    const decodedChars = new TextDecoder("shift_jis").decode(bytes).length;
    return { thrownLabel, hugeLabel, nulLabel, unicodeLabel, getterOption, notBytes, open, fatal, decodedChars };
  },
});
